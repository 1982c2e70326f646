import { describe, expect, it } from 'vitest';
import { VERIFICATION_CODE_ALPHABET } from '../../contracts/channels.js';
import { containsVerificationCode, newVerificationCode } from './binding-verification.js';

describe('binding verification codes', () => {
  it('are 8 characters of the unambiguous alphabet, and differ', () => {
    const codes = Array.from({ length: 200 }, () => newVerificationCode());
    for (const code of codes) expect(code).toMatch(/^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$/);
    expect(new Set(codes).size).toBe(codes.length);
    expect(VERIFICATION_CODE_ALPHABET).not.toMatch(/[01ILO]/);
  });

  it('are found in a message in any case, and never when absent or missing', () => {
    expect(containsVerificationCode('Our code: K7QM3XRA, thanks', 'K7QM3XRA')).toBe(true);
    expect(containsVerificationCode('k7qm3xra', 'K7QM3XRA')).toBe(true);
    expect(containsVerificationCode('K7QM3XR', 'K7QM3XRA')).toBe(false);
    expect(containsVerificationCode('anything', null)).toBe(false);
    expect(containsVerificationCode('', '')).toBe(false);
  });
});
