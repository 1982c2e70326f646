import { SetMetadata, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { z } from 'zod';
import { AppError } from '../errors/app-error.js';
import { unstorablePath } from '../db/storable-text.js';
import { zodFieldErrors } from '../errors/zod-details.js';

export const ENDPOINT = 'http:endpoint';

export interface EndpointSpec {
  summary: string;
  description?: string;
  tags?: string[];
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  /** The success body; omit for 204. */
  response?: z.ZodType;
  /** The success body's media type (default `application/json`). */
  responseType?: string;
  /** Success status (default 200; 201 for creates, 204 for no body). */
  status?: number;
  /** Documented error codes besides the defaults. */
  errors?: number[];
  /** Extra request headers the route reads. */
  headers?: Record<string, string>;
}

/**
 * Describes a route once: the zod schemas that validate it are the ones its OpenAPI entry is
 * generated from.
 */
export const Endpoint = (spec: EndpointSpec) => SetMetadata(ENDPOINT, spec);

function parsePart(ctx: ExecutionContext, part: 'body' | 'query' | 'params'): unknown {
  const spec = Reflect.getMetadata(ENDPOINT, ctx.getHandler()) as EndpointSpec | undefined;
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
