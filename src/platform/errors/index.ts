export { AppError, type AppErrorOptions } from './app-error.js';
export { ERROR_CODES, type ErrorCode } from './error-codes.js';
export { errorBody } from './error-body.js';
export { zodFieldErrors } from './zod-details.js';
export { toErrorResponse } from './to-error-response.js';
export { AllExceptionsFilter, sendError } from './http-exception.filter.js';
