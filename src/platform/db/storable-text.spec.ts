import { describe, expect, it } from 'vitest';
import { isStorableText, storableText, unstorablePath } from './storable-text.js';

describe('text the database can store', () => {
  it('refuses a NUL and an unpaired surrogate, accepts a surrogate pair', () => {
    expect(isStorableText('plain é 🦄')).toBe(true);
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('\ud800')).toBe(false);
    expect(isStorableText('x\udc00')).toBe(false);
  });

  it('drops each NUL and replaces each unpaired surrogate', () => {
    expect(storableText('a\u0000b\ud800c🦄\udc00')).toBe('ab\ufffdc🦄\ufffd');
  });

  it('names the first unstorable string or key of a parsed body', () => {
    expect(unstorablePath({ a: ['ok', { b: 'x\u0000' }] })).toEqual(['a', '1', 'b']);
    expect(unstorablePath({ ['k\ud800']: 1 })).toEqual(['k\ud800']);
    expect(unstorablePath({ a: 1, b: [true, null, 'fine'] })).toBeUndefined();
  });
});
