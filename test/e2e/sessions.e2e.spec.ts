import { eq } from 'drizzle-orm';
import { SignJWT, importPKCS8 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authSessions } from '../../src/modules/auth/auth.tables.js';
import { SessionsService } from '../../src/modules/auth/index.js';
import { UsersService } from '../../src/modules/users/index.js';
import { AccessEvents, type AccessChange } from '../../src/platform/auth/access-events.js';
import { TokenService } from '../../src/platform/auth/token.service.js';
import { setLogDestination } from '../../src/platform/observability/logger.js';
import { codeMailedBy } from '../support/mail.js';
import { claimsOf, sessionOf } from '../support/sessions.js';
import { connectSocket } from '../support/sockets.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
const DAY_S = 24 * 3600;

/**
 * Server-side sessions (API-MAP "Sessions, sockets and hardening"): every token names one (`sid`),
 * `POST /auth/logout` ends one or all, a token whose session ended, expired or is another user's
 * is refused, and so are tokens over 7 days or issued ahead, whatever their signature. Every refusal
 * leaves a `security.*` line without the token.
 */
describe('sessions: sid in every token, logout, lifetime rules', () => {
  let app: TestApp;
  const lines: string[] = [];
  const changes: AccessChange[] = [];
  const security = () =>
    lines
      .flatMap((l) => l.split('\n').filter(Boolean))
      .map((l) => JSON.parse(l) as Record<string, any>)
      .filter((l) => String(l.event).startsWith('security.'));

  beforeAll(async () => {
    setLogDestination({ write: (line: string) => void lines.push(line) });
    app = await startTestApp({ env: { LOG_LEVEL: 'warn' } });
    app.running.app.get(AccessEvents).on((change) => void changes.push(change));
  });
  afterAll(async () => {
    await app?.close();
    setLogDestination(undefined);
  });

  const me = (token: string) => app.get('/api/auth/me', { token });
  /** A token of the user signed with the service's own key: any iat and exp, the claims the service puts in. */
  const ownSigned = async (token: string, iat: number, exp: number, extra: Record<string, unknown> = {}) => {
    const { sub, iss: _iss, iat: _iat, exp: _exp, ...claims } = claimsOf(token);
    return new SignJWT({ ...claims, ...extra })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setSubject(sub)
      .setIssuer('client-organization-service')
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(await importPKCS8(app.running.config.keys.jwtPrivateKeyPem, 'RS256'));
  };

  it('names a server-side session in the token of every way of signing in', async () => {
    const password = await app.login('expert@platform.demo.invalid', PASSWORD);
    expect(await sessionOf(app, password)).toMatchObject({ userId: claimsOf(password).sub, method: 'password', endedAt: null });

    const code = await codeMailedBy(app.url, 'client@acme.demo.invalid', () => app.post('/api/auth/request-otp', { email: 'client@acme.demo.invalid' }));
    const emailed = (await app.post('/api/auth/verify-otp', { email: 'client@acme.demo.invalid', code })).body.token as string;
    expect(await sessionOf(app, emailed)).toMatchObject({ method: 'email_otp', endedAt: null });

    const demo = await app.demoLogin('org_admin', 'acme');
    const row = await sessionOf(app, demo);
    expect(row).toMatchObject({ method: 'demo', endedAt: null });
    // The session ends when its token does.
    expect(row!.expiresAt.getTime()).toBe(claimsOf(demo).exp * 1000);
    expect(claimsOf(demo).exp - claimsOf(demo).iat).toBe(7 * DAY_S);
    // Two sign-ins, two sessions.
    expect(claimsOf(await app.login('expert@platform.demo.invalid', PASSWORD)).sid).not.toBe(claimsOf(password).sid);
  });

  it('signs out the presented session only: its token answers 401 on REST and sockets, the others go on', async () => {
    const first = await app.login('org_admin@acme.demo.invalid', PASSWORD);
    const second = await app.login('org_admin@acme.demo.invalid', PASSWORD);
    (await connectSocket(app.url, first)).close();

    const res = await app.post('/api/auth/logout', undefined, { token: first });
    expect(res.status).toBe(204);
    const after = await me(first);
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 'unauthorized', message: 'Session revoked, sign in again' });
    await expect(connectSocket(app.url, first)).rejects.toThrow();
    expect((await me(second)).status).toBe(200);
    expect(await sessionOf(app, first)).toMatchObject({ endedAt: expect.any(Date), endReason: 'logout' });
    expect(changes).toContainEqual({ kind: 'session_ended', sessionId: claimsOf(first).sid });
    // Signing out again with the ended token is refused like any other request.
    expect((await app.post('/api/auth/logout', {}, { token: first })).status).toBe(401);
    expect((await app.post('/api/auth/logout', {})).status).toBe(401);
  });

  it('signs out every session of the caller with {all: true}, and announces it for the sockets', async () => {
    const tokens = [await app.login('client@acme.demo.invalid', PASSWORD), await app.login('client@acme.demo.invalid', PASSWORD), await app.demoLogin('client', 'acme')];
    const other = await app.login('org_admin@acme.demo.invalid', PASSWORD);
    for (const t of tokens) expect((await me(t)).status).toBe(200);

    expect((await app.post('/api/auth/logout', { all: true }, { token: tokens[0] })).status).toBe(204);
    for (const t of tokens) {
      expect((await me(t)).status).toBe(401);
      expect(await sessionOf(app, t)).toMatchObject({ endReason: 'logout_all' });
    }
    await expect(connectSocket(app.url, tokens[2])).rejects.toThrow();
    expect(changes).toContainEqual({ kind: 'user_revoked', userId: claimsOf(tokens[0]!).sub });
    expect((await me(other)).status).toBe(200);
    // A new sign-in works at once.
    expect((await me(await app.login('client@acme.demo.invalid', PASSWORD))).status).toBe(200);
    expect((await app.post('/api/auth/logout', { all: 'yes' }, { token: other })).status).toBe(400);
  });

  it('refuses a token whose session expired, is unknown or belongs to another user, though its signature is good', async () => {
    const token = await app.login('expert@platform.demo.invalid', PASSWORD);
    const sid = claimsOf(token).sid as string;
    await app.running.dbService.db
      .update(authSessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(authSessions.id, sid));
    expect((await me(token)).status).toBe(401);

    const expert = (await app.running.app.get(UsersService).load(claimsOf(token).sub))!;
    const subject = { userId: expert.id, email: expert.email, name: expert.name, platformRole: expert.platformRole, orgMemberships: expert.orgMemberships };
    const tokens = app.running.app.get(TokenService);
    expect((await me(await tokens.sign({ ...subject, sessionId: '00000000-0000-4000-8000-000000000001' }))).status).toBe(401);
    const someoneElse = claimsOf(await app.login('client@acme.demo.invalid', PASSWORD)).sid as string;
    expect((await me(await tokens.sign({ ...subject, sessionId: someoneElse }))).status).toBe(401);
    // The same claims with an open session of the expert's own pass: only the session was wrong.
    const { sessionId } = await app.running.app.get(SessionsService).open(subject, 'test');
    expect((await me(await tokens.sign({ ...subject, sessionId }))).status).toBe(200);
  });

  it('deletes sessions 30 days after they expired, and keeps younger ones', async () => {
    const token = await app.login('expert@platform.demo.invalid', PASSWORD);
    const old = await app.login('expert@platform.demo.invalid', PASSWORD);
    const db = app.running.dbService.db;
    await db
      .update(authSessions)
      .set({ expiresAt: new Date(Date.now() - 31 * DAY_S * 1000) })
      .where(eq(authSessions.id, claimsOf(old).sid));
    await db
      .update(authSessions)
      .set({ expiresAt: new Date(Date.now() - 29 * DAY_S * 1000) })
      .where(eq(authSessions.id, claimsOf(token).sid));
    // The hourly cleanup task may run meanwhile and take the old row itself: the rows left decide.
    await app.running.app.get(SessionsService).deleteExpired();
    expect(await sessionOf(app, old)).toBeUndefined();
    expect(await sessionOf(app, token)).toBeDefined();
  });

  it('refuses tokens over 7 days, issued more than 60 s ahead, or without sid, signed with its own key', async () => {
    const token = await app.login('expert@platform.demo.invalid', PASSWORD);
    const now = Math.floor(Date.now() / 1000);
    expect((await me(await ownSigned(token, now, now + 7 * DAY_S))).status).toBe(200);
    expect((await me(await ownSigned(token, now + 30, now + DAY_S))).status).toBe(200);
    for (const forged of [
      await ownSigned(token, now, now + 7 * DAY_S + 1),
      await ownSigned(token, now - 365 * DAY_S, now + 365 * DAY_S),
      await ownSigned(token, now + 120, now + DAY_S),
      await ownSigned(token, now, now + DAY_S, { sid: undefined }),
    ]) {
      const res = await me(forged);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    }
  });

  it('logs refused and revoked tokens as security.* lines with the user and the reason, never the token', async () => {
    lines.length = 0;
    const token = await app.login('expert@platform.demo.invalid', PASSWORD);
    const userId = claimsOf(token).sub as string;
    const now = Math.floor(Date.now() / 1000);
    const overlong = await ownSigned(token, now, now + 30 * DAY_S);
    const ahead = await ownSigned(token, now + 600, now + DAY_S);
    const loggedOut = await app.login('expert@platform.demo.invalid', PASSWORD);
    await app.post('/api/auth/logout', {}, { token: loggedOut });
    const renamed = await app.running.app.get(UsersService).create({ email: 'rotating@example.com', name: 'Rotating', platformRole: 'expert', password: 'first-password' });
    const beforeChange = await app.login('rotating@example.com', 'first-password');
    await new Promise((r) => setTimeout(r, 5));
    await app.running.app.get(UsersService).setPassword(renamed.id, 'second-password');
    const suspended = await app.running.app.get(UsersService).create({ email: 'to-suspend@example.com', name: 'Suspended', platformRole: 'expert', password: 'first-password' });
    const beforeSuspension = await app.login('to-suspend@example.com', 'first-password');
    await app.running.app.get(UsersService).setStatus(suspended.id, 'suspended');

    const sent = ['not-a-jwt', `${token.slice(0, -4)}AAAA`, overlong, ahead, loggedOut, beforeChange, beforeSuspension];
    for (const t of sent) expect((await me(t)).status).toBe(401);
    await connectSocket(app.url, loggedOut).catch(() => undefined);

    const events = security();
    expect(events).toContainEqual(expect.objectContaining({ event: 'security.token_refused', reason: 'malformed' }));
    expect(events).toContainEqual(expect.objectContaining({ event: 'security.token_refused', reason: 'bad_signature' }));
    expect(events).toContainEqual(expect.objectContaining({ event: 'security.token_refused', reason: 'lifetime_too_long', userId }));
    expect(events).toContainEqual(expect.objectContaining({ event: 'security.token_refused', reason: 'issued_in_future', userId }));
    const ended = events.filter((e) => e.event === 'security.token_revoked' && e.reason === 'session_ended');
    // Once on REST, once on the socket handshake.
    expect(ended).toEqual([
      expect.objectContaining({ userId, sessionId: claimsOf(loggedOut).sid, endReason: 'logout' }),
      expect.objectContaining({ userId, sessionId: claimsOf(loggedOut).sid, endReason: 'logout' }),
    ]);
    expect(events).toContainEqual(expect.objectContaining({ event: 'security.token_revoked', reason: 'password_changed', userId: renamed.id }));
    expect(events).toContainEqual(expect.objectContaining({ event: 'security.token_revoked', reason: 'user_inactive', userId: suspended.id, status: 'suspended' }));
    for (const line of lines) {
      for (const t of [...sent, token]) expect(line.includes(t.split('.')[2]!), 'a token signature in a log line').toBe(false);
    }
  });
});

describe('sessions: bootstrap opens one too', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ seeded: false, env: { BOOTSTRAP_TOKEN: 'a-bootstrap-token-for-the-test' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('names a bootstrap session in the first superadmin token', async () => {
    const res = await app.post('/api/bootstrap', { email: 'root@example.com', password: 'a-root-password', name: 'Root' }, { headers: { 'x-bootstrap-token': 'a-bootstrap-token-for-the-test' } });
    expect(res.status).toBe(201);
    expect(await sessionOf(app, res.body.token)).toMatchObject({ method: 'bootstrap', userId: res.body.user.id, endedAt: null });
  });
});
