import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { isDeepStrictEqual } from 'node:util';
import type { FastifyRequest } from 'fastify';
import { map, type Observable } from 'rxjs';
import { z } from 'zod';
import { endpointOf, isRawResponse, type EndpointSpec } from './endpoint.js';
import { JsonText } from './json-text.js';

/** A route answered something its `@Endpoint` response does not describe. */
export class ResponseMismatchError extends Error {
  override readonly name = 'ResponseMismatchError';
}

/**
 * The JSON body a value is sent as (a `JsonText`: its text), checked against the route's response: a body the schema
 * refuses, or one with fields the schema does not name (the schema would strip them, so the
 * document and the web app's types would not know them), is a mismatch. Undefined when it matches.
 */
export function responseMismatch(spec: Pick<EndpointSpec, 'response'>, value: unknown): string | undefined {
  const response = spec.response;
  if (response === null) return value === undefined ? undefined : 'a body on a route whose @Endpoint response is null (no content)';
  if (isRawResponse(response)) return undefined;
  if (value === undefined) return 'no body on a route with a JSON response schema';
  // A body already written is read as the client reads it: its text, parsed.
  const body: unknown = value instanceof JsonText ? value.parse() : JSON.parse(JSON.stringify(value));
  const parsed = response.safeParse(body);
  if (!parsed.success) return z.prettifyError(parsed.error);
  if (!isDeepStrictEqual(parsed.data, body)) return `fields the schema does not name: ${JSON.stringify(unnamed(body, parsed.data))}`;
  return undefined;
}

/** The parts of `body` that parsing dropped. */
function unnamed(body: unknown, kept: unknown): unknown {
  if (Array.isArray(body) && Array.isArray(kept)) return body.flatMap((item, i) => (isDeepStrictEqual(item, kept[i]) ? [] : [{ [i]: unnamed(item, kept[i]) }]));
  if (body && kept && typeof body === 'object' && typeof kept === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(body)) {
      if (!Object.hasOwn(kept, key)) out[key] = item;
      else if (!isDeepStrictEqual(item, (kept as Record<string, unknown>)[key])) out[key] = unnamed(item, (kept as Record<string, unknown>)[key]);
    }
    return out;
  }
  return body;
}

/**
 * Test runs only (APP_ENV=test): every answer of a route is checked against its `@Endpoint`
 * response, and a mismatch is a 500 with the route and the difference logged, so the test that
 * made the call fails, and so is a route without an `@Endpoint`. Routes that write their own body
 * (files, streams) are not read.
 */
@Injectable()
export class ResponseSchemaCheck implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const route = `${request.method} ${request.routeOptions.url ?? request.url}`;
    const spec = endpointOf(context.getHandler());
    // Every route says what it answers: one without an @Endpoint is not typed, documented or checked.
    if (!spec) throw new ResponseMismatchError(`${route} has no @Endpoint`);
    return next.handle().pipe(
      map((value: unknown) => {
        const problem = responseMismatch(spec, value);
        if (problem) throw new ResponseMismatchError(`${route} answered outside its @Endpoint response: ${problem}`);
        return value;
      }),
    );
  }
}
