import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';

/** API-MAP "Sessions, sockets and hardening": deeper bodies answer 400 validation_failed. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether arrays and objects in a JSON text nest deeper than `max`, read in one pass over the
 * bytes (or UTF-16 units of a stored text) before anything is parsed: no recursion, so no stack to
 * exhaust; brackets inside strings do not count. A multi-byte UTF-8 character never contains these
 * ASCII bytes, so bytes are enough.
 */
export function nestsDeeperThan(text: Uint8Array | string, max: number): boolean {
  const at = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i]!;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = at(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

const tooDeep = () => new AppError('validation_failed', 'Invalid body', { details: [{ field: 'body', message: `Nested deeper than ${MAX_JSON_DEPTH} levels` }] });

/**
 * The JSON body parser of every route (webhooks included, which keep their raw bytes for
 * signatures): fastify's own parser (prototype poisoning refused), after the nesting check, so a
 * hostile body never reaches the recursive code behind it (validation, storage checks, workers).
 * An empty body is no body, whatever its content type says: a route that takes none (a password
 * reset, an invite) answers as without it, one that needs a body refuses it as `validation_failed`.
 */
export function depthLimitedJsonParser(fastify: FastifyInstance) {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void) => {
    if (body.length === 0) {
      done(null, undefined);
      return;
    }
    if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
      done(tooDeep());
      return;
    }
    // Called with `done`, the parser answers through it (its promise type is for the other form).
    void parse(request, body as unknown as string, done);
  };
}
