import { NotFoundException } from '@nestjs/common';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { AppError } from './app-error.js';
import { ERROR_CODES } from './error-codes.js';
import { toErrorResponse } from './to-error-response.js';
import { zodFieldErrors } from './zod-details.js';

describe('error translation', () => {
  it('maps every code of API-MAP.md to its status and error word', () => {
    expect(ERROR_CODES).toMatchObject({
      validation_failed: { status: 400 },
      bad_request: { status: 400 },
      unauthorized: { status: 401 },
      forbidden: { status: 403 },
      org_suspended: { status: 403 },
      not_found: { status: 404 },
      conflict: { status: 409 },
      phase0_gate_failed: { status: 409 },
      invite_expired: { status: 410 },
      invite_used: { status: 410 },
      rate_limit: { status: 429, error: 'ThrottlerException' },
      backpressure: { status: 503, error: 'ServiceUnavailable' },
    });
  });

  it('writes an AppError as the API-MAP.md body with its headers', () => {
    const res = toErrorResponse(new AppError('phase0_gate_failed', 'Gate fails', { details: { missing: ['slug'] }, headers: { 'retry-after': '3' } }), 'req-1');
    expect(res).toEqual({
      status: 409,
      body: { statusCode: 409, code: 'phase0_gate_failed', error: 'Conflict', message: 'Gate fails', details: { missing: ['slug'] } },
      headers: { 'retry-after': '3' },
      unexpected: false,
    });
  });

  it('hides an unexpected error behind a 500 with the request id only', () => {
    const res = toErrorResponse(new Error('connection string postgres://user:secret@db leaked'), 'req-42');
    expect(res.status).toBe(500);
    expect(res.unexpected).toBe(true);
    expect(res.body).toEqual({
      statusCode: 500,
      code: 'internal_error',
      error: 'Internal Server Error',
      message: 'Internal server error (request id req-42)',
      requestId: 'req-42',
    });
    expect(JSON.stringify(res.body)).not.toContain('secret');
  });

  it("translates Nest's and fastify's own errors", () => {
    expect(toErrorResponse(new NotFoundException(), 'r').body).toEqual({ statusCode: 404, code: 'not_found', error: 'Not Found', message: 'Route not found' });
    const tooLarge = Object.assign(new Error('Request body is too large'), { statusCode: 413 });
    expect(toErrorResponse(tooLarge, 'r').body.code).toBe('payload_too_large');
  });

  it('lists zod field errors with dotted paths', () => {
    const schema = z.object({ a: z.string(), nested: z.object({ b: z.number() }) });
    const parsed = schema.safeParse({ nested: { b: 'x' } });
    expect(zodFieldErrors(parsed.error!)).toEqual([
      { field: 'a', message: expect.any(String) },
      { field: 'nested.b', message: expect.any(String) },
    ]);
    expect(zodFieldErrors(parsed.error!, 'query')[0]!.field).toBe('query.a');
  });
});
