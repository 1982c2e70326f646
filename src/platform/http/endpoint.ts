import { SetMetadata, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { z } from 'zod';
import { AppError } from '../errors/app-error.js';
import { unstorablePath } from '../db/storable-text.js';
import { zodFieldErrors } from '../errors/zod-details.js';
import type { JsonText } from './json-text.js';

export const ENDPOINT = 'http:endpoint';

/**
 * A route that writes its own answer through `@Res()` (a file, an image, a text document, a
 * stream): its media type, and for the document the schema of that body.
 */
export interface RawResponse {
  raw: string;
  schema?: z.ZodType;
}

/**
 * What a route answers on success: a zod schema is its JSON body (the handler returns a value of
 * that schema); `null` is no body at all (204); a `RawResponse` is a body the route writes itself.
 * Every route says which, so none drops out of the typed and tested answer by forgetting it.
 */
export type EndpointResponse = z.ZodType | RawResponse | null;

export interface EndpointSpec<R extends EndpointResponse = EndpointResponse> {
  summary: string;
  description?: string;
  tags?: string[];
  body?: z.ZodType;
  /** The body's media type (default `application/json`): `multipart/form-data` for an upload, which the route reads itself. */
  bodyType?: string;
  query?: z.ZodType;
  params?: z.ZodType;
  response: R;
  /** Success status (default 200; 201 for creates, 204 for no body). */
  status?: number;
  /** Documented error codes besides the defaults. */
  errors?: number[];
  /** Extra request headers the route reads. */
  headers?: Record<string, string>;
}

/** A body the route writes itself may also be returned to Nest to send (text, bytes). */
type RawBody = string | Uint8Array;

/**
 * What the handler of a route may return: the value its JSON body is written from (a value of the
 * schema as the client reads it, since nothing converts it on the way), or that body already
 * written (`JsonText`, sent as it is); nothing for 204; a raw body.
 */
export type EndpointAnswer<R extends EndpointResponse> = R extends null ? void : R extends RawResponse ? void | RawBody : R extends z.ZodType ? z.output<R> | JsonText<z.output<R>> : never;

type EndpointHandler<R extends EndpointResponse> = (...args: never[]) => EndpointAnswer<R> | Promise<EndpointAnswer<R>>;

/** A handler typed `any` (an untyped JSON.parse, a cast) would pass any schema: refused. */
type NotAny<H> = H extends (...args: never[]) => infer A ? (0 extends 1 & Awaited<A> ? { 'returns any, which no response schema can check': never } : unknown) : unknown;

export const isRawResponse = (response: EndpointResponse): response is RawResponse => response !== null && 'raw' in response;

/**
 * Describes a route once: the zod schemas that validate it are the ones its OpenAPI entry is
 * generated from, and the handler it decorates must return what `response` says (a compile error
 * otherwise).
 */
export function Endpoint<const R extends EndpointResponse>(spec: EndpointSpec<R>) {
  const metadata = SetMetadata(ENDPOINT, spec);
  return <H extends EndpointHandler<R>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<H> & NotAny<H>): void => {
    metadata(target, key, descriptor);
  };
}

/** The `@Endpoint` of a handler, if it has one. */
export const endpointOf = (handler: object): EndpointSpec | undefined => Reflect.getMetadata(ENDPOINT, handler) as EndpointSpec | undefined;

function parsePart(ctx: ExecutionContext, part: 'body' | 'query' | 'params'): unknown {
  const spec = endpointOf(ctx.getHandler());
  const schema = spec?.[part];
  const request = ctx.switchToHttp().getRequest<Record<string, unknown>>();
  const value = request[part];
  if (!schema) throw new Error(`@Valid${part} used on a route without an @Endpoint ${part} schema`);
  // Text the database refuses is invalid input, not a failed query.
  const bad = unstorablePath(value);
  if (bad) {
    if (part === 'params') throw AppError.notFound('Resource');
    const field = [part === 'body' ? undefined : part, ...bad].filter(Boolean).join('.') || part;
    throw new AppError('validation_failed', `Invalid ${part}`, { details: [{ field, message: 'Contains a NUL or an unpaired surrogate, which cannot be stored' }] });
  }
  const result = schema.safeParse(part === 'body' ? (value ?? {}) : value);
  if (!result.success) {
    // A path that cannot name a resource (a malformed id) is an unknown resource.
    if (part === 'params') throw AppError.notFound('Resource');
    throw new AppError('validation_failed', `Invalid ${part}`, {
      details: zodFieldErrors(result.error, part === 'body' ? undefined : part),
    });
  }
  return result.data;
}

/** The request body, parsed with the route's @Endpoint body schema (400 validation_failed otherwise). */
export const ValidBody = createParamDecorator((_: unknown, ctx: ExecutionContext) => parsePart(ctx, 'body'));
export const ValidQuery = createParamDecorator((_: unknown, ctx: ExecutionContext) => parsePart(ctx, 'query'));
export const ValidParams = createParamDecorator((_: unknown, ctx: ExecutionContext) => parsePart(ctx, 'params'));
