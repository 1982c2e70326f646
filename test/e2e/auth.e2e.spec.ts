import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersService } from '../../src/modules/users/index.js';
import { codeMailedBy } from '../support/mail.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';

describe('auth over HTTP', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('signs in with a password and lands each demo role on its page (spec 5.4)', async () => {
    const cases = [
      ['superadmin@platform.demo.invalid', 'superadmin', '/ops/clients'],
      ['account_manager@platform.demo.invalid', 'account_manager', '/ops/clients'],
      ['expert@platform.demo.invalid', 'expert', '/workspace/queue'],
      ['org_admin@acme.demo.invalid', 'org_admin', '/client/chat'],
      ['client@acme.demo.invalid', 'org_member', '/client/chat'],
    ] as const;
    for (const [email, role, landing] of cases) {
      const res = await app.post('/api/auth/login', { email, password: PASSWORD });
      expect(res.status, email).toBe(200);
      expect(res.body.user).toMatchObject({ email, platformRole: role, status: 'active' });
      const claims = JSON.parse(Buffer.from(res.body.token.split('.')[1], 'base64url').toString());
      expect(claims).toMatchObject({ sub: res.body.user.id, email, platformRole: role });
      expect(claims.exp - claims.iat).toBe(7 * 24 * 3600);
      expect(Array.isArray(claims.orgMemberships)).toBe(true);
      const me = await app.get('/api/auth/me', { token: res.body.token });
      expect(me.status).toBe(200);
      expect(me.body.landing).toBe(landing);
    }
  });

  it('lists org memberships with their org on /auth/me and in the token', async () => {
    const clientLogin = await app.post('/api/auth/login', { email: 'client@acme.demo.invalid', password: PASSWORD });
    const claims = JSON.parse(Buffer.from(clientLogin.body.token.split('.')[1], 'base64url').toString());
    expect(claims.orgMemberships).toEqual([{ orgId: expect.any(String), orgRole: 'member' }]);
    const token = await app.login('org_admin@acme.demo.invalid', PASSWORD);
    const me = await app.get('/api/auth/me', { token });
    expect(me.body.orgMemberships).toEqual([expect.objectContaining({ orgRole: 'owner', orgSlug: 'acme', orgName: 'Acme Corporation' })]);
  });

  it('refuses a wrong password with the error body of API-MAP.md', async () => {
    const res = await app.post('/api/auth/login', { email: 'superadmin@platform.demo.invalid', password: 'wrong-password' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ statusCode: 401, code: 'unauthorized', error: 'Unauthorized', message: 'Invalid email or password' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('lists field errors for a body that fails its schema', async () => {
    const res = await app.post('/api/auth/login', { email: 'not-an-email' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, code: 'validation_failed', error: 'Bad Request' });
    expect(res.body.details).toEqual(
      expect.arrayContaining([
        { field: 'email', message: expect.any(String) },
        { field: 'password', message: expect.any(String) },
      ]),
    );
  });

  it('answers 401 without a token, with a forged token, and with a garbage header', async () => {
    const variants: Record<string, string>[] = [{}, { authorization: 'Bearer abc.def.ghi' }, { authorization: 'Basic Zm9vOmJhcg==' }];
    for (const headers of variants) {
      const res = await app.get('/api/auth/me', { headers });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    }
  });

  it('refuses a token signed with another key', async () => {
    const { generateKeyPair, SignJWT } = await import('jose');
    const { privateKey } = await generateKeyPair('RS256');
    const me = await app.get('/api/auth/me', { token: await app.login('client@acme.demo.invalid', PASSWORD) });
    const forged = await new SignJWT({ email: me.body.email, name: '', platformRole: 'superadmin', orgMemberships: [], pwv: Date.now() })
      .setProtectedHeader({ alg: 'RS256' })
      .setSubject(me.body.id)
      .setIssuer('client-organization-service')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    expect((await app.get('/api/auth/me', { token: forged })).status).toBe(401);
  });

  it('revokes tokens issued before passwordChangedAt, to the millisecond, and keeps the new one', async () => {
    const users = app.running.app.get(UsersService);
    const email = 'revoke-me@example.com';
    const user = await users.create({ email, name: 'Revoke Me', platformRole: 'expert', password: 'first-password' });
    const oldToken = await app.login(email, 'first-password');
    expect((await app.get('/api/auth/me', { token: oldToken })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 5));
    await users.setPassword(user.id, 'second-password');
    const res = await app.get('/api/auth/me', { token: oldToken });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
    const newToken = await app.login(email, 'second-password');
    expect((await app.get('/api/auth/me', { token: newToken })).status).toBe(200);
    expect((await app.post('/api/auth/login', { email, password: 'first-password' })).status).toBe(401);
  });

  it('refuses suspended and deactivated users at login and on their existing tokens', async () => {
    const users = app.running.app.get(UsersService);
    for (const status of ['suspended', 'deactivated'] as const) {
      const email = `${status}@example.com`;
      const user = await users.create({ email, name: status, platformRole: 'org_member', password: 'a-password' });
      const token = await app.login(email, 'a-password');
      await users.setStatus(user.id, status);
      expect((await app.get('/api/auth/me', { token })).status).toBe(401);
      const login = await app.post('/api/auth/login', { email, password: 'a-password' });
      expect(login.status).toBe(401);
    }
  });

  it('signs in with an emailed code: 6 digits, single use', async () => {
    const email = 'client@acme.demo.invalid';
    const code = await codeMailedBy(app.url, email, async () => expect((await app.post('/api/auth/request-otp', { email })).status).toBe(204));
    const ok = await app.post('/api/auth/verify-otp', { email, code });
    expect(ok.status).toBe(200);
    expect(ok.body.user.email).toBe(email);
    const again = await app.post('/api/auth/verify-otp', { email, code });
    expect(again.status).toBe(401);
  });

  it('answers 204 for unknown addresses and mails nothing', async () => {
    const email = 'nobody@example.com';
    expect((await app.post('/api/auth/request-otp', { email })).status).toBe(204);
    // Codes go out from queued jobs, one after the other: once a later request's code arrived, this one was handled.
    const known = 'org_admin@acme.demo.invalid';
    await codeMailedBy(app.url, known, () => app.post('/api/auth/request-otp', { email: known }));
    expect((await app.get(`/api/dev/mail?to=${encodeURIComponent(email)}`)).body).toEqual([]);
  });

  it('kills a code after 5 wrong attempts (with the answer of every other failure)', async () => {
    const email = 'expert@platform.demo.invalid';
    const code = await codeMailedBy(app.url, email, () => app.post('/api/auth/request-otp', { email }));
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expect((await app.post('/api/auth/verify-otp', { email, code: wrong })).status).toBe(401);
    const res = await app.post('/api/auth/verify-otp', { email, code });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ statusCode: 401, code: 'unauthorized', error: 'Unauthorized', message: 'Invalid or expired code' });
  });

  it('demo-login finds or creates <role>@<slug|platform>.demo.invalid (API-MAP.md)', async () => {
    const token = await app.demoLogin('client', 'acme');
    const me = await app.get('/api/auth/me', { token });
    expect(me.body).toMatchObject({ email: 'client@acme.demo.invalid', platformRole: 'org_member', landing: '/client/chat' });
    expect(me.body.orgMemberships[0]).toMatchObject({ orgRole: 'member', orgSlug: 'acme' });

    const admin = await app.get('/api/auth/me', { token: await app.demoLogin('org_admin', 'acme') });
    expect(admin.body).toMatchObject({ platformRole: 'org_admin' });
    expect(admin.body.orgMemberships[0].orgRole).toBe('owner');

    const am = await app.get('/api/auth/me', { token: await app.demoLogin('account_manager') });
    expect(am.body).toMatchObject({ email: 'account_manager@platform.demo.invalid', name: 'Demo Account Manager' });

    const fresh = await app.get('/api/auth/me', { token: await app.demoLogin('expert', 'acme') });
    expect(fresh.body).toMatchObject({ email: 'expert@acme.demo.invalid', name: 'Demo Expert', landing: '/workspace/queue' });

    expect((await app.post('/api/auth/demo-login', { role: 'client', orgSlug: 'no-such-org' })).status).toBe(404);
    expect((await app.post('/api/auth/demo-login', { role: 'client' })).status).toBe(404);
    expect((await app.post('/api/auth/demo-login', { role: 'client_admin' })).status).toBe(400);
  });
});

describe('bootstrap of the first superadmin', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ seeded: false, env: { BOOTSTRAP_TOKEN: 'let-me-in-please' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('needs the token, creates once, then answers 409', async () => {
    const body = { email: 'root@example.com', password: 'correct horse battery', name: 'Root' };
    expect((await app.post('/api/bootstrap', body)).status).toBe(401);
    expect((await app.post('/api/bootstrap', body, { headers: { 'x-bootstrap-token': 'wrong' } })).status).toBe(401);
    const ok = await app.post('/api/bootstrap', body, { headers: { 'x-bootstrap-token': 'let-me-in-please' } });
    expect(ok.status).toBe(201);
    expect(ok.body.user).toMatchObject({ email: 'root@example.com', platformRole: 'superadmin' });
    const again = await app.post('/api/bootstrap', { ...body, email: 'second@example.com' }, { headers: { 'x-bootstrap-token': 'let-me-in-please' } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('conflict');
    expect((await app.post('/api/auth/login', { email: 'root@example.com', password: 'correct horse battery' })).status).toBe(200);
  });
});

describe('malformed requests', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers broken JSON with a 400 in the API-MAP.md body', async () => {
    const res = await app.request('POST', '/api/auth/login', { body: '{not json', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, code: 'bad_request', error: 'Bad Request' });
  });

  it('takes an empty body sent as application/json for no body: a route that needs one answers validation_failed', async () => {
    const res = await app.request('POST', '/api/auth/login', { headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, code: 'validation_failed', error: 'Bad Request' });
  });

  it('answers an unknown API route with the JSON 404 and a request id', async () => {
    const res = await app.get('/api/no-such-route', { headers: { 'x-request-id': 'trace-me-123' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, code: 'not_found', error: 'Not Found', message: 'Route not found' });
    expect(res.headers.get('x-request-id')).toBe('trace-me-123');
    const post = await app.post('/api/no-such-route', {});
    expect(post.status).toBe(404);
    expect(post.body.code).toBe('not_found');
  });
});
