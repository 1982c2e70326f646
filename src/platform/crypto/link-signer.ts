import { hkdfSync } from 'node:crypto';
import { hmacSha256Hex, safeEqual } from './crypto.js';

/**
 * Signatures of links that act as their own credential (a download link an `<img>` can load):
 * HMAC-SHA-256 over the fields the link names and its expiry, with a key derived (HKDF) from
 * ENCRYPTION_KEY for one purpose, so a signature made for one purpose is worth nothing for another
 * and the encryption key itself never signs. A check accepts the previous keys too
 * (ENCRYPTION_KEY_PREVIOUS): rotating the key voids no link still in its lifetime.
 */
export class LinkSigner {
  private readonly keys: readonly Buffer[];

  constructor(purpose: string, current: Buffer, previous: readonly Buffer[] = []) {
    this.keys = [current, ...previous].map((key) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `link-signer:${purpose}`, 32)));
  }

  /** The signature of `fields` until `expires` (seconds since the epoch). */
  sign(fields: readonly string[], expires: number): string {
    return hmacSha256Hex(this.keys[0]!, payload(fields, expires));
  }

  /** Whether `signature` was made for these fields and expiry with one of the keys (every key compared, in constant time). */
  verify(fields: readonly string[], expires: number, signature: string): boolean {
    let found = false;
    for (const key of this.keys) found = safeEqual(hmacSha256Hex(key, payload(fields, expires)), signature) || found;
    return found;
  }
}

function payload(fields: readonly string[], expires: number): string {
  // Each field is length-prefixed: no two lists of fields give the same text.
  return [...fields, String(expires)].map((f) => `${f.length}:${f}`).join('|');
}
