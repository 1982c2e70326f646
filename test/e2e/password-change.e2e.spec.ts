import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersService } from '../../src/modules/users/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'a-good-password';
const NEW_PASSWORD = 'a-better-password';

/** The caller's own password change (the profile page of every role; issue 18). */
describe('changing one own password', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  let seq = 0;
  async function newUser(platformRole: 'expert' | 'org_member' = 'expert') {
    const email = `pw-${++seq}-${Date.now().toString(36)}@example.com`;
    await app.running.app.get(UsersService).create({ email, name: 'Pass Word', platformRole, password: PASSWORD });
    return { email, token: await app.login(email, PASSWORD) };
  }

  it('needs the current password, ends every earlier session and answers a new one', async () => {
    const { email, token } = await newUser();
    const other = await app.login(email, PASSWORD);
    const changed = await app.post('/api/auth/me/password', { currentPassword: PASSWORD, password: NEW_PASSWORD }, { token });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ token: expect.any(String), user: { email } });
    // Earlier sessions end, the new one works, and only the new password signs in.
    expect((await app.get('/api/auth/me', { token })).status).toBe(401);
    expect((await app.get('/api/auth/me', { token: other })).status).toBe(401);
    expect((await app.get('/api/auth/me', { token: changed.body.token })).body.email).toBe(email);
    expect((await app.post('/api/auth/login', { email, password: PASSWORD })).status).toBe(401);
    expect((await app.post('/api/auth/login', { email, password: NEW_PASSWORD })).status).toBe(200);
  });

  it('refuses a wrong current password (400 on currentPassword) and a short new one, changing nothing', async () => {
    const { email, token } = await newUser('org_member');
    const wrong = await app.post('/api/auth/me/password', { currentPassword: 'not-it', password: NEW_PASSWORD }, { token });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'validation_failed', details: [{ field: 'currentPassword' }] });
    const short = await app.post('/api/auth/me/password', { currentPassword: PASSWORD, password: 'short' }, { token });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ field: 'password' })] });
    expect((await app.get('/api/auth/me', { token })).status).toBe(200);
    expect((await app.post('/api/auth/login', { email, password: PASSWORD })).status).toBe(200);
    expect((await app.post('/api/auth/me/password', { password: NEW_PASSWORD }, {})).status).toBe(401);
  });
});
