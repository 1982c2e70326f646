import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LinkSigner } from './link-signer.js';

describe('LinkSigner', () => {
  const key = randomBytes(32);
  const signer = new LinkSigner('downloads', key);

  it('verifies its own signature for the same fields and expiry only', () => {
    const sig = signer.sign(['org', 'conv', 'file'], 1000);
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    expect(signer.verify(['org', 'conv', 'file'], 1000, sig)).toBe(true);
    expect(signer.verify(['org', 'conv', 'file'], 1001, sig)).toBe(false);
    expect(signer.verify(['other', 'conv', 'file'], 1000, sig)).toBe(false);
    // Fields are length-prefixed: moving a boundary changes the signature.
    expect(signer.verify(['or', 'gconv', 'file'], 1000, sig)).toBe(false);
    expect(signer.verify(['org', 'conv', 'file'], 1000, sig.toUpperCase())).toBe(false);
  });

  it('signs per purpose and per key, and still accepts a previous key', () => {
    const sig = signer.sign(['a'], 1);
    expect(new LinkSigner('other-purpose', key).verify(['a'], 1, sig)).toBe(false);
    expect(new LinkSigner('downloads', randomBytes(32)).verify(['a'], 1, sig)).toBe(false);
    expect(new LinkSigner('downloads', randomBytes(32), [key]).verify(['a'], 1, sig)).toBe(true);
  });
});
