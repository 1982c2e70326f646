import { hmacSha256Hex, safeEqual } from './crypto.js';

/**
 * Keyed hashes (HMAC-SHA-256) of short secrets kept for a later check (email codes, recovery
 * codes): made with the current ENCRYPTION_KEY; a check also accepts a hash made with a previous
 * key (ENCRYPTION_KEY_PREVIOUS), so rotating the key voids none of them while the old key stays
 * configured.
 */
export class KeyedHash {
  private readonly keys: readonly Buffer[];

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    this.keys = [current, ...previous];
  }

  /** The hash to store: under the current key. */
  of(input: string): string {
    return hmacSha256Hex(this.keys[0]!, input);
  }

  /** The input's hash under every key in use, the current key's first. */
  candidates(input: string): string[] {
    return this.keys.map((key) => hmacSha256Hex(key, input));
  }

  /** Whether a stored hash is the input's under one of the keys (every key compared, in constant time). */
  matches(stored: string, input: string): boolean {
    let found = false;
    for (const candidate of this.candidates(input)) found = safeEqual(stored, candidate) || found;
    return found;
  }
}
