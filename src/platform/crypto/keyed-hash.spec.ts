import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyedHash } from './keyed-hash.js';

describe('KeyedHash', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);

  it('stores under the current key and checks under every key in use', () => {
    const before = new KeyedHash(oldKey);
    const during = new KeyedHash(newKey, [oldKey]);
    const stored = before.of('recovery:u1:abcde12345');
    expect(during.of('recovery:u1:abcde12345')).not.toBe(stored);
    expect(during.matches(stored, 'recovery:u1:abcde12345')).toBe(true);
    expect(during.matches(during.of('recovery:u1:abcde12345'), 'recovery:u1:abcde12345')).toBe(true);
    expect(during.candidates('x')).toEqual([new KeyedHash(newKey).of('x'), before.of('x')]);
  });

  it('refuses another input, and a hash of a key no longer configured', () => {
    const stored = new KeyedHash(oldKey).of('123456');
    expect(new KeyedHash(oldKey).matches(stored, '123457')).toBe(false);
    expect(new KeyedHash(newKey).matches(stored, '123456')).toBe(false);
  });
});
