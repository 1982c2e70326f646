import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export function sha256Hex(input: string | Buffer): string {
  return createHash('sha256').update(input).digest('hex');
}

export function hmacSha256Hex(key: string | Buffer, input: string | Buffer): string {
  return createHmac('sha256', key).update(input).digest('hex');
}

/** Constant-time comparison of two strings (different lengths compare unequal without leaking where). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** A uniformly drawn 6-digit code. */
export function sixDigitCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

/**
 * AES-256-GCM sealing for secrets at rest. The output names the key it was sealed with
 * (`v1.<keyId>.<iv>.<tag>.<ciphertext>`) so keys can rotate: it seals with the current key and
 * opens what the previous keys (ENCRYPTION_KEY_PREVIOUS) sealed.
 */
export class SecretBox {
  readonly keyId: string;
  private readonly openers = new Map<string, Buffer>();

  constructor(
    private readonly key: Buffer,
    previous: readonly Buffer[] = [],
  ) {
    if ([key, ...previous].some((k) => k.length !== 32)) throw new Error('encryption key must be 32 bytes');
    this.keyId = keyIdOf(key);
    for (const k of [...previous, key]) this.openers.set(keyIdOf(k), k);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return ['v1', this.keyId, iv.toString('base64url'), tag.toString('base64url'), ct.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, keyId, iv, tag, ct] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unrecognised sealed secret');
    const key = this.openers.get(keyId);
    if (!key) throw new Error(`secret sealed with another key (${keyId})`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** The id a sealed secret names its key by: the first 8 hex digits of the key's SHA-256. */
export function keyIdOf(key: Buffer): string {
  return sha256Hex(key).slice(0, 8);
}
