import { HttpException } from '@nestjs/common';
import type { ErrorBody } from '../../contracts/errors.js';
import { AppError } from './app-error.js';
import { errorBody } from './error-body.js';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** True when the error was not one we meant to answer: log it whole. */
  unexpected: boolean;
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limit',
  503: 'service_unavailable',
};

/** One translation from anything thrown to the API-MAP.md error body. */
export function toErrorResponse(err: unknown, requestId: string): ErrorResponse {
  if (err instanceof AppError) {
    return {
      status: err.status,
      body: errorBody(err.code, err.message, err.details),
      headers: err.headers ?? {},
      unexpected: false,
    };
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const code = CODE_BY_STATUS[status];
    if (code) {
      const message = status === 404 ? 'Route not found' : err.message;
      return { status, body: errorBody(code, message), headers: {}, unexpected: false };
    }
  }
  // Errors raised by fastify itself (body parsing, content type, size) carry a 4xx statusCode.
  const statusCode = (err as { statusCode?: unknown })?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const code = CODE_BY_STATUS[statusCode] ?? 'bad_request';
    const message = err instanceof Error ? err.message : 'Bad request';
    return { status: ERROR_CODES[code].status, body: errorBody(code, message), headers: {}, unexpected: false };
  }
  return {
    status: 500,
    body: errorBody('internal_error', `Internal server error (request id ${requestId})`, undefined, requestId),
    headers: {},
    unexpected: true,
  };
}
