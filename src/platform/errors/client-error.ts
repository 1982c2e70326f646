import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { BASE_SECURITY_HEADERS } from '../http/security-headers.js';
import { errorBody } from './error-body.js';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';

/**
 * A request that Node's HTTP parser refuses before any route sees it (a request line and headers
 * over the limit, a malformed request, a client too slow) answers in the error body of API-MAP.md
 * too; the connection then closes, as Node's own answer does.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, message]: [ErrorCode, string] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? ['headers_too_large', 'The request line and headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['request_timeout', 'The request did not arrive in time']
        : ['bad_request', 'Malformed HTTP request'];
  const body = JSON.stringify(errorBody(code, message));
  const status = ERROR_CODES[code].status;
  if (socket.writable) {
    const security = Object.entries(BASE_SECURITY_HEADERS)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n${security}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
