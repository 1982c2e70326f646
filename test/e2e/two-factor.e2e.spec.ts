import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersService } from '../../src/modules/users/index.js';
import { codeMailedBy } from '../support/mail.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'a-good-password';
/** A code of the current 30-second step, or of a neighbouring one (`steps` away). */
const codeFor = (secret: string, steps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

describe('two-factor sign-in (spec 4.3, 5.1)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  let seq = 0;
  async function newUser() {
    const email = `totp-${++seq}-${Date.now().toString(36)}@example.com`;
    await app.running.app.get(UsersService).create({ email, name: 'Two Factor', platformRole: 'org_member', password: PASSWORD });
    return { email, token: await app.login(email, PASSWORD) };
  }

  /** Sets up and turns on two-factor sign-in with the code of the current step: later sign-ins use the next one. */
  async function enable(token: string) {
    const setup = (await app.post('/api/auth/2fa/setup', undefined, { token })).body as { secret: string; recoveryCodes: string[] };
    expect((await app.post('/api/auth/2fa/verify', { code: await codeFor(setup.secret) }, { token })).status).toBe(204);
    return setup;
  }

  it('sets up with a secret, an otpauth URL, a QR code and 10 recovery codes; nothing changes until verified', async () => {
    const { email, token } = await newUser();
    const res = await app.post('/api/auth/2fa/setup', undefined, { token });
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(res.body.otpauthUrl).toMatch(new RegExp(`^otpauth://totp/.+${encodeURIComponent(email)}.*secret=${res.body.secret}`));
    expect(res.body.qrCodeDataUrl).toMatch(/^data:image\/png;base64,/);
    expect(res.body.recoveryCodes).toHaveLength(10);
    expect(new Set(res.body.recoveryCodes).size).toBe(10);
    expect((await app.get('/api/auth/2fa', { token })).body).toEqual({ enabled: false, recoveryCodesLeft: 0 });
    expect((await app.post('/api/auth/login', { email, password: PASSWORD })).status).toBe(200);
    // A recovery code is no key before two-factor is on.
    expect((await app.post('/api/auth/login', { email, password: PASSWORD, recoveryCode: res.body.recoveryCodes[0] })).status).toBe(200);
  });

  it('turns on with a code generated from the secret (a wrong one is refused), then requires it at login', async () => {
    const { email, token } = await newUser();
    const setup = (await app.post('/api/auth/2fa/setup', undefined, { token })).body;
    const wrong = await app.post('/api/auth/2fa/verify', { code: '000000' === (await codeFor(setup.secret)) ? '111111' : '000000' }, { token });
    expect(wrong.status).toBe(400);
    expect((await app.post('/api/auth/2fa/verify', { code: await codeFor(setup.secret) }, { token })).status).toBe(204);
    expect((await app.get('/api/auth/2fa', { token })).body).toEqual({ enabled: true, recoveryCodesLeft: 10 });
    expect((await app.get('/api/auth/me', { token })).body.totpEnabled).toBe(true);

    const noCode = await app.post('/api/auth/login', { email, password: PASSWORD });
    expect(noCode.status).toBe(401);
    expect(noCode.body).toMatchObject({ code: 'totp_required', error: 'Unauthorized' });

    const code = await codeFor(setup.secret, 1);
    const ok = await app.post('/api/auth/login', { email, password: PASSWORD, totpCode: code });
    expect(ok.status).toBe(200);
    expect((await app.get('/api/auth/me', { token: ok.body.token })).body.email).toBe(email);

    // A code works once: seen on the wire, it cannot be replayed.
    const replay = await app.post('/api/auth/login', { email, password: PASSWORD, totpCode: code });
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('unauthorized');
    // A wrong password never reaches the second factor.
    expect((await app.post('/api/auth/login', { email, password: 'wrong-password', totpCode: await codeFor(setup.secret, 1) })).body.code).toBe('unauthorized');
    expect((await app.post('/api/auth/2fa/setup', undefined, { token })).status).toBe(409);
  });

  it('lets a user with a lost phone in with a recovery code, each code once', async () => {
    const { email, token } = await newUser();
    const { recoveryCodes } = await enable(token);
    const first = await app.post('/api/auth/login', { email, password: PASSWORD, recoveryCode: recoveryCodes[0].toUpperCase() });
    expect(first.status).toBe(200);
    expect((await app.post('/api/auth/login', { email, password: PASSWORD, recoveryCode: recoveryCodes[0] })).status).toBe(401);
    expect((await app.post('/api/auth/login', { email, password: PASSWORD, recoveryCode: 'aaaaa-aaaaa' })).status).toBe(401);
    expect((await app.get('/api/auth/2fa', { token: first.body.token })).body.recoveryCodesLeft).toBe(9);

    // Signed in with a recovery code, the user renews the codes (the old ones stop working) or turns two-factor off.
    const renewed = await app.post('/api/auth/2fa/recovery-codes', { recoveryCode: recoveryCodes[1] }, { token: first.body.token });
    expect(renewed.status).toBe(200);
    expect(renewed.body.recoveryCodes).toHaveLength(10);
    expect((await app.post('/api/auth/login', { email, password: PASSWORD, recoveryCode: recoveryCodes[2] })).status).toBe(401);
    expect((await app.post('/api/auth/2fa/disable', { recoveryCode: renewed.body.recoveryCodes[0] }, { token: first.body.token })).status).toBe(204);
    expect((await app.post('/api/auth/login', { email, password: PASSWORD })).status).toBe(200);

    const rows = (await app.get('/api/ops/audit?action=auth.recovery_code_used', { token: await app.login('superadmin@platform.demo.invalid', 'demo1234') })).body.items;
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(recoveryCodes[0]);
  });

  it('needs the second factor with an emailed sign-in code too, without spending the emailed code', async () => {
    const { email, token } = await newUser();
    const { secret } = await enable(token);
    const code = await codeMailedBy(app.url, email, () => app.post('/api/auth/request-otp', { email }));
    const bare = await app.post('/api/auth/verify-otp', { email, code });
    expect(bare.status).toBe(401);
    expect(bare.body.code).toBe('totp_required');
    const ok = await app.post('/api/auth/verify-otp', { email, code, totpCode: await codeFor(secret, 1) });
    expect(ok.status).toBe(200);
  });

  it('counts wrong second factors as failed sign-ins of the address (10 per 15 minutes, then 429)', async () => {
    const { email, token } = await newUser();
    const { secret } = await enable(token);
    const good = await codeFor(secret, 1);
    const wrong = good === '123456' ? '654321' : '123456';
    for (let i = 0; i < 10; i++) expect((await app.post('/api/auth/login', { email, password: PASSWORD, totpCode: wrong })).status).toBe(401);
    const blocked = await app.post('/api/auth/login', { email, password: PASSWORD, totpCode: good });
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('rate_limit');
  });

  it('turns off only with a current code, and is answered 409 when already off', async () => {
    const { email, token } = await newUser();
    const { secret } = await enable(token);
    expect((await app.post('/api/auth/2fa/disable', {}, { token })).status).toBe(400);
    const next = await codeFor(secret, 1);
    expect((await app.post('/api/auth/2fa/disable', { totpCode: next === '000000' ? '111111' : '000000' }, { token })).status).toBe(400);
    expect((await app.post('/api/auth/2fa/disable', { totpCode: next }, { token })).status).toBe(204);
    expect((await app.post('/api/auth/login', { email, password: PASSWORD })).status).toBe(200);
    expect((await app.post('/api/auth/2fa/disable', { totpCode: next }, { token })).status).toBe(409);
    expect((await app.post('/api/auth/2fa/verify', { code: next }, { token })).status).toBe(409);
  });

  it('lets a user edit their own name from their profile', async () => {
    const { token } = await newUser();
    const res = await app.patch('/api/auth/me', { name: '  Renamed Me ' }, { token });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Renamed Me');
    expect((await app.get('/api/auth/me', { token })).body.name).toBe('Renamed Me');
    expect((await app.patch('/api/auth/me', { email: 'x@example.com' }, { token })).status).toBe(400);
  });
});
