import type { ErrorBody } from '../../contracts/errors.js';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';

export function errorBody(code: ErrorCode, message: string, details?: unknown, requestId?: string): ErrorBody {
  const { status, error } = ERROR_CODES[code];
  const body: ErrorBody = { statusCode: status, code, error, message };
  if (details !== undefined) body.details = details;
  if (requestId !== undefined) body.requestId = requestId;
  return body;
}
