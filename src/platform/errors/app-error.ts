import { ERROR_CODES, type ErrorCode } from './error-codes.js';

export interface AppErrorOptions {
  details?: unknown;
  /** Extra response headers (Retry-After and the rate-limit headers). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The one error class of the service: a code from ERROR_CODES, a message a user can read. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  static notFound(what = 'Resource'): AppError {
    return new AppError('not_found', `${what} not found`);
  }
  static unauthorized(message = 'Authentication required'): AppError {
    return new AppError('unauthorized', message);
  }
  static forbidden(message = 'You are not allowed to do this'): AppError {
    return new AppError('forbidden', message);
  }
  static conflict(message: string, details?: unknown): AppError {
    return new AppError('conflict', message, { details });
  }
  static badRequest(message: string, details?: unknown): AppError {
    return new AppError('bad_request', message, { details });
  }
}
