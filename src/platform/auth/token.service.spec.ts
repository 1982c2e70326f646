import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { TokenService, type TokenSubject } from './token.service.js';

const pair = () => generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
const subject: TokenSubject = { userId: randomUUID(), email: 'a@example.com', name: 'A', platformRole: 'expert', orgMemberships: [] };

describe('TokenService while its key pair rotates', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cos-tokens-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const service = (keys: { privateKey: string; publicKey: string }, previous?: string) =>
    new TokenService(loadConfig({ APP_ENV: 'test', DATA_DIR: dataDir, JWT_PRIVATE_KEY: keys.privateKey, JWT_PUBLIC_KEY: keys.publicKey, JWT_PUBLIC_KEY_PREVIOUS: previous }));

  it('accepts tokens of the keys in JWT_PUBLIC_KEY_PREVIOUS, and no others', async () => {
    const [old, next, stranger] = [pair(), pair(), pair()];
    const oldToken = await service(old).sign(subject);
    expect(await service(next).verify(oldToken)).toBeNull();
    const rotated = service(next, old.publicKey);
    expect(await rotated.verify(oldToken)).toMatchObject({ sub: subject.userId });
    expect(await rotated.verify(await rotated.sign(subject))).toMatchObject({ sub: subject.userId });
    expect(await rotated.verify(await service(stranger).sign(subject))).toBeNull();
    // Before the switch, instances still signing with the old key accept the new key's tokens.
    expect(await service(old, next.publicKey).verify(await rotated.sign(subject))).toMatchObject({ sub: subject.userId });
    // An expired token stays refused whichever key signed it.
    expect(await rotated.verify(await service(old).sign(subject, Date.now() - 8 * 24 * 3600 * 1000))).toBeNull();
  });

  it('refuses a JWT_PUBLIC_KEY_PREVIOUS that holds no public key', () => {
    expect(() => loadConfig({ APP_ENV: 'test', DATA_DIR: dataDir, JWT_PUBLIC_KEY_PREVIOUS: 'not a key' })).toThrow(/JWT_PUBLIC_KEY_PREVIOUS/);
  });
});
