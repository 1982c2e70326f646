import { randomInt } from 'node:crypto';
import { VERIFICATION_CODE_ALPHABET, VERIFICATION_CODE_LENGTH } from '../../contracts/channels.js';

/** A fresh verification code: 8 characters of the unambiguous alphabet, from the CSPRNG. */
export function newVerificationCode(): string {
  let code = '';
  for (let i = 0; i < VERIFICATION_CODE_LENGTH; i++) code += VERIFICATION_CODE_ALPHABET[randomInt(VERIFICATION_CODE_ALPHABET.length)];
  return code;
}

/**
 * Whether a message proves control of its source: it carries the code, in any letter case (a phone
 * keyboard may change it), as a word of its own or inside other text.
 */
export function containsVerificationCode(text: string, code: string | null): boolean {
  if (!code || code.length !== VERIFICATION_CODE_LENGTH) return false;
  return text.toUpperCase().includes(code.toUpperCase());
}
