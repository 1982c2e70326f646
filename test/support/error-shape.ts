import { ERROR_CODES, type ErrorCode } from '../../src/platform/errors/error-codes.js';

const ALLOWED_KEYS = new Set(['statusCode', 'code', 'error', 'message', 'details']);

/**
 * What is wrong with an error answer, measured against API-MAP.md "Conventions": the body
 * `{ statusCode, code, error, message, details? }` with the code's own status and error word, and
 * spec 7.1's headers on 429 and 503. Undefined when it is right.
 */
export function errorShapeProblem(status: number, headers: Headers, body: unknown): string | undefined {
  if (!(headers.get('content-type') ?? '').includes('application/json')) return `content-type ${headers.get('content-type')}`;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return `body ${JSON.stringify(body)?.slice(0, 200)}`;
  const b = body as Record<string, unknown>;
  const extra = Object.keys(b).filter((k) => !ALLOWED_KEYS.has(k));
  if (extra.length > 0) return `extra keys ${extra.join(', ')}`;
  if (b.statusCode !== status) return `statusCode ${String(b.statusCode)} on a ${status}`;
  const known = ERROR_CODES[b.code as ErrorCode] as { status: number; error: string } | undefined;
  if (!known) return `unknown code ${String(b.code)}`;
  if (known.status !== status) return `code ${String(b.code)} on a ${status}`;
  if (b.error !== known.error) return `error ${String(b.error)} for ${String(b.code)}`;
  if (typeof b.message !== 'string' || b.message.length === 0) return 'no message';
  if (status === 429) {
    if (b.code !== 'rate_limit') return `429 with code ${String(b.code)}`;
    for (const h of ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) if (!headers.get(h)) return `429 without ${h}`;
    if (headers.get('x-ratelimit-remaining') !== '0') return '429 with X-RateLimit-Remaining not 0';
  }
  if (status === 503 && b.code === 'backpressure' && !headers.get('retry-after')) return '503 without Retry-After';
  return undefined;
}
