import { describe, expect, it } from 'vitest';
import { RecoveryCodeSchema } from '../../contracts/auth.js';
import { newRecoveryCode, normalizeRecoveryCode } from './two-factor.rules.js';

describe('recovery codes', () => {
  it('are two groups of 5 from an alphabet without look-alikes, and differ', () => {
    const codes = Array.from({ length: 200 }, newRecoveryCode);
    for (const code of codes) expect(code).toMatch(/^[a-hj-km-np-z2-9]{5}-[a-hj-km-np-z2-9]{5}$/);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('normalize the way the request schema does, however they are typed back', () => {
    const code = newRecoveryCode();
    for (const typed of [code, code.toUpperCase(), code.replace('-', ''), ` ${code.replace('-', ' ')} `]) {
      expect(RecoveryCodeSchema.parse(typed)).toBe(normalizeRecoveryCode(code));
    }
    expect(RecoveryCodeSchema.safeParse('too-short').success).toBe(false);
  });
});
