import { randomBytes } from 'node:crypto';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersService } from '../../src/modules/users/index.js';
import { codeMailedBy } from '../support/mail.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'a-good-password';
const key = () => randomBytes(32).toString('base64');

/**
 * Rotating ENCRYPTION_KEY (docs/operations.md): instances on one database, before, during and
 * after the switch. Email codes and recovery codes are keyed hashes: while the old key stays in
 * ENCRYPTION_KEY_PREVIOUS they keep working; without it they, and the sealed TOTP secret, do not.
 */
describe.runIf(Boolean(process.env.DATABASE_URL))('rotating ENCRYPTION_KEY', () => {
  const oldKey = key();
  const newKey = key();
  let before: TestApp;
  let after: TestApp;
  let withoutOld: TestApp;
  beforeAll(async () => {
    before = await startTestApp({ env: { ENCRYPTION_KEY: oldKey } });
    after = await startTestApp({ shareWith: before, env: { ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: oldKey } });
    withoutOld = await startTestApp({ shareWith: before, env: { ENCRYPTION_KEY: newKey } });
  });
  afterAll(async () => {
    await withoutOld?.running.close();
    await after?.running.close();
    await before?.close();
  });

  it('keeps recovery codes and the TOTP secret issued under the old key while it stays configured', async () => {
    const email = `rotation-${Date.now().toString(36)}@example.com`;
    await before.running.app.get(UsersService).create({ email, name: 'Rotation', platformRole: 'org_member', password: PASSWORD });
    const token = await before.login(email, PASSWORD);
    const setup = (await before.post('/api/auth/2fa/setup', undefined, { token })).body as { secret: string; recoveryCodes: string[] };
    expect((await before.post('/api/auth/2fa/verify', { code: await generate({ secret: setup.secret }) }, { token })).status).toBe(204);

    const recovered = await after.post('/api/auth/login', { email, password: PASSWORD, recoveryCode: setup.recoveryCodes[0] });
    expect(recovered.status).toBe(200);
    // Each code still works once.
    expect((await after.post('/api/auth/login', { email, password: PASSWORD, recoveryCode: setup.recoveryCodes[0] })).status).toBe(401);
    const totp = await generate({ secret: setup.secret, epoch: Math.floor(Date.now() / 1000) + 30 });
    expect((await after.post('/api/auth/login', { email, password: PASSWORD, totpCode: totp })).status).toBe(200);

    // Codes issued after the switch are hashed under the new key, and work there.
    const renewed = await after.post('/api/auth/2fa/recovery-codes', { recoveryCode: setup.recoveryCodes[1] }, { token: recovered.body.token });
    expect(renewed.status).toBe(200);
    expect((await withoutOld.post('/api/auth/login', { email, password: PASSWORD, recoveryCode: renewed.body.recoveryCodes[0] })).status).toBe(200);
    // An old code is gone with the renewal, whichever key the instance holds.
    expect((await after.post('/api/auth/login', { email, password: PASSWORD, recoveryCode: setup.recoveryCodes[2] })).status).toBe(401);
  });

  it('refuses recovery codes of the old key once the old key is dropped', async () => {
    const email = `rotation-dropped-${Date.now().toString(36)}@example.com`;
    await before.running.app.get(UsersService).create({ email, name: 'Rotation', platformRole: 'org_member', password: PASSWORD });
    const token = await before.login(email, PASSWORD);
    const setup = (await before.post('/api/auth/2fa/setup', undefined, { token })).body as { secret: string; recoveryCodes: string[] };
    expect((await before.post('/api/auth/2fa/verify', { code: await generate({ secret: setup.secret }) }, { token })).status).toBe(204);
    expect((await withoutOld.post('/api/auth/login', { email, password: PASSWORD, recoveryCode: setup.recoveryCodes[0] })).status).toBe(401);
  });

  it('accepts an emailed sign-in code sent before the switch', async () => {
    const email = 'client@acme.demo.invalid';
    const code = await codeMailedBy(before.url, email, async () => expect((await before.post('/api/auth/request-otp', { email })).status).toBe(204));
    const ok = await after.post('/api/auth/verify-otp', { email, code });
    expect(ok.status).toBe(200);
    expect(ok.body.user.email).toBe(email);
  });
});
