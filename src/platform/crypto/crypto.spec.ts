import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox, safeEqual, sixDigitCode } from './crypto.js';

describe('SecretBox', () => {
  it('round-trips and names its key', () => {
    const box = new SecretBox(randomBytes(32));
    const sealed = box.seal('xoxb-secret');
    expect(sealed).not.toContain('xoxb-secret');
    expect(sealed.split('.')[1]).toBe(box.keyId);
    expect(box.open(sealed)).toBe('xoxb-secret');
  });

  it('refuses a tampered ciphertext and a foreign key', () => {
    const box = new SecretBox(randomBytes(32));
    const sealed = box.seal('hello');
    const parts = sealed.split('.');
    parts[4] = Buffer.from('jello').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow(/another key/);
  });

  it('opens what a previous key sealed and seals with the current one (rotation)', () => {
    const old = randomBytes(32);
    const sealedBefore = new SecretBox(old).seal('xoxb-old');
    const rotated = new SecretBox(randomBytes(32), [old]);
    expect(rotated.open(sealedBefore)).toBe('xoxb-old');
    const sealedAfter = rotated.seal('xoxb-new');
    expect(sealedAfter.split('.')[1]).toBe(rotated.keyId);
    expect(sealedAfter.split('.')[1]).not.toBe(sealedBefore.split('.')[1]);
    expect(rotated.open(sealedAfter)).toBe('xoxb-new');
    expect(() => new SecretBox(old).open(sealedAfter)).toThrow(/another key/);
  });
});

describe('safeEqual and codes', () => {
  it('compares strings', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
  it('draws 6-digit codes', () => {
    for (let i = 0; i < 200; i++) expect(sixDigitCode()).toMatch(/^\d{6}$/);
  });
});
