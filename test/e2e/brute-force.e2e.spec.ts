import { eq } from 'drizzle-orm';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { emailOtpCodes } from '../../src/modules/auth/auth.tables.js';
import { orgInvites } from '../../src/modules/onboarding/onboarding.tables.js';
import { UsersService } from '../../src/modules/users/index.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { setLogDestination } from '../../src/platform/observability/logger.js';
import { postFromAddress, type ApiResponse } from '../support/http.js';
import { codeMailedBy, waitForMailedCode } from '../support/mail.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'a-good-password';
const DEMO_PASSWORD = 'demo1234';
/** The one answer of every failed emailed-code sign-in (API-MAP "Sessions, sockets and hardening"). */
const CODE_REFUSED = { statusCode: 401, code: 'unauthorized', error: 'Unauthorized', message: 'Invalid or expired code' };
const codeFor = (secret: string, steps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });
const otherThan = (code: string) => (code === '000000' ? '111111' : '000000');
const lastCode = (text: string) => /\b(\d{6})\b/.exec(text)![1]!;

/** The 429 of spec 7.1: body and headers. */
function expectRateLimited(res: ApiResponse, limit: number) {
  expect(res.status).toBe(429);
  expect(res.body).toMatchObject({ statusCode: 429, code: 'rate_limit', error: 'ThrottlerException', message: expect.any(String) });
  expect(res.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

/**
 * Brute force on every sign-in path (API-MAP "Sessions, sockets and hardening"; spec 4.3, 5, 7.1):
 * onboarding codes, second-factor checks, passwords per client IP, one answer for every failed
 * emailed code, request-otp off the request path, and the `security.*` lines each failure leaves.
 */
describe('brute force on sign-in', () => {
  let app: TestApp;
  let am: string;
  const lines: string[] = [];
  /** Every password and code the flows below send: none may reach a log line. */
  const secrets = new Set<string>([PASSWORD, DEMO_PASSWORD]);
  let seq = 0;

  beforeAll(async () => {
    setLogDestination({ write: (line: string) => void lines.push(line) });
    app = await startTestApp({ env: { LOG_LEVEL: 'warn' } });
    am = await app.login('account_manager@platform.demo.invalid', DEMO_PASSWORD);
  });
  afterAll(async () => {
    setLogDestination(undefined);
    await app?.close();
  });

  const securityLines = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => typeof entry.event === 'string' && (entry.event as string).startsWith('security.'));
  const eventsOf = (event: string, match: Record<string, unknown>) => securityLines().filter((entry) => entry.event === `security.${event}` && Object.entries(match).every(([k, v]) => entry[k] === v));

  async function newUser(totp = false) {
    const email = `brute-${++seq}-${Date.now().toString(36)}@example.com`;
    const user = await app.running.app.get(UsersService).create({ email, name: 'Brute', platformRole: 'org_member', password: PASSWORD });
    const token = await app.login(email, PASSWORD);
    let secret = '';
    if (totp) {
      secret = (await app.post('/api/auth/2fa/setup', undefined, { token })).body.secret;
      expect((await app.post('/api/auth/2fa/verify', { code: await codeFor(secret) }, { token })).status).toBe(204);
    }
    return { id: user.id, email, token, secret };
  }

  async function invitedOrg() {
    const slug = `bf-${++seq}-${Date.now().toString(36)}`;
    const org = await app.post(
      '/api/am/orgs',
      { legalName: `Org ${slug}`, slug, industry: 'finance', corporateDomains: [`${slug}.example.com`], adminEmail: `owner@${slug}.example.com`, website: 'https://o.example.com', timezone: 'UTC' },
      { token: am },
    );
    expect(org.status).toBe(201);
    const invite = await app.post(`/api/am/orgs/${org.body.id}/invite`, {}, { token: am });
    expect(invite.status).toBe(200);
    return { orgId: org.body.id as string, adminEmail: org.body.adminEmail as string, token: new URL(invite.body.onboardingUrl).searchParams.get('token')! };
  }

  async function sendInviteCode(token: string, adminEmail: string): Promise<string> {
    expect((await app.post('/api/auth/send-invite-otp', { token })).status).toBe(204);
    const code = lastCode((await app.get(`/api/dev/mail?to=${encodeURIComponent(adminEmail)}&limit=1`)).body[0].text);
    secrets.add(code);
    return code;
  }

  it('allows 5 wrong onboarding codes per invite in total, whatever the codes sent, until the AM sends the invite again', async () => {
    const { orgId, adminEmail, token } = await invitedOrg();
    let code = await sendInviteCode(token, adminEmail);
    for (let i = 0; i < 3; i++) expect((await app.post('/api/auth/verify-invite-otp', { token, code: otherThan(code) })).status).toBe(401);
    // A new code does not buy new guesses.
    code = await sendInviteCode(token, adminEmail);
    for (let i = 0; i < 2; i++) expect((await app.post('/api/auth/verify-invite-otp', { token, code: otherThan(code) })).status).toBe(401);
    code = await sendInviteCode(token, adminEmail);
    expectRateLimited(await app.post('/api/auth/verify-invite-otp', { token, code }), 5);

    // The count lives on the invite (every instance sees it, a restart keeps it).
    const [row] = await app.running.app.get(DbService).db.select().from(orgInvites).where(eq(orgInvites.orgId, orgId));
    expect(row!.otpFailedAttempts).toBe(5);

    // The AM sends the invite again: a fresh budget, and the right code signs in.
    expect((await app.post(`/api/am/orgs/${orgId}/invite`, {}, { token: am })).status).toBe(200);
    code = await sendInviteCode(token, adminEmail);
    const ok = await app.post('/api/auth/verify-invite-otp', { token, code });
    expect(ok.status).toBe(200);
    expect(ok.body.user.email).toBe(adminEmail);

    const failed = eventsOf('otp_failed', { inviteId: row!.id, method: 'invite_otp', ip: '127.0.0.1' });
    expect(failed.length).toBeGreaterThanOrEqual(5);
    expect(eventsOf('lockout', { inviteId: row!.id, ip: '127.0.0.1' })).toHaveLength(1);
  });

  it('mails at most 5 onboarding codes per invite in 15 minutes', async () => {
    const { token } = await invitedOrg();
    for (let i = 0; i < 5; i++) expect((await app.post('/api/auth/send-invite-otp', { token })).status).toBe(204);
    expectRateLimited(await app.post('/api/auth/send-invite-otp', { token }), 5);
    // Another invite has its own budget.
    const other = await invitedOrg();
    expect((await app.post('/api/auth/send-invite-otp', { token: other.token })).status).toBe(204);
  });

  it('allows 5 wrong second factors per 15 minutes on disable, recovery-codes and verify, then 429 even for a right code', async () => {
    const user = await newUser(true);
    const good = await codeFor(user.secret, 1);
    secrets.add(good);
    for (let i = 0; i < 3; i++) expect((await app.post('/api/auth/2fa/disable', { totpCode: otherThan(good) }, { token: user.token })).status).toBe(400);
    for (let i = 0; i < 2; i++) expect((await app.post('/api/auth/2fa/recovery-codes', { recoveryCode: 'aaaaa-aaaaa' }, { token: user.token })).status).toBe(400);
    expectRateLimited(await app.post('/api/auth/2fa/disable', { totpCode: good }, { token: user.token }), 5);
    expectRateLimited(await app.post('/api/auth/2fa/recovery-codes', { totpCode: good }, { token: user.token }), 5);
    expect((await app.get('/api/auth/2fa', { token: user.token })).body.enabled).toBe(true);
    expect(eventsOf('second_factor_failed', { userId: user.id, ip: '127.0.0.1' }).length).toBeGreaterThanOrEqual(5);
    expect(eventsOf('lockout', { userId: user.id, after: 'second_factor_failed' })).toHaveLength(1);

    // Turning two-factor on is guarded the same way.
    const fresh = await newUser();
    const setup = (await app.post('/api/auth/2fa/setup', undefined, { token: fresh.token })).body as { secret: string };
    const right = await codeFor(setup.secret);
    secrets.add(right);
    for (let i = 0; i < 5; i++) expect((await app.post('/api/auth/2fa/verify', { code: otherThan(right) }, { token: fresh.token })).status).toBe(400);
    expectRateLimited(await app.post('/api/auth/2fa/verify', { code: right }, { token: fresh.token }), 5);
    expect((await app.get('/api/auth/2fa', { token: fresh.token })).body.enabled).toBe(false);
  });

  it('locks an account after wrong passwords only for the IP that sent them', async () => {
    const user = await newUser();
    const wrong = `${PASSWORD}-wrong`;
    secrets.add(wrong);
    for (let i = 0; i < 10; i++) expect((await app.post('/api/auth/login', { email: user.email, password: wrong })).status).toBe(401);
    // From 127.0.0.1 the account is locked, for the right password too.
    expectRateLimited(await app.post('/api/auth/login', { email: user.email, password: PASSWORD }), 10);
    // Without TRUST_PROXY a forwarded-for header is no way out.
    expectRateLimited(await app.post('/api/auth/login', { email: user.email, password: PASSWORD }, { headers: { 'x-forwarded-for': '203.0.113.9' } }), 10);
    // Another client address keeps signing in.
    const elsewhere = await postFromAddress('127.0.0.2', `${app.url}/api/auth/login`, { email: user.email, password: PASSWORD });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.user.email).toBe(user.email);

    expect(eventsOf('login_failed', { email: user.email, ip: '127.0.0.1', method: 'password' }).length).toBeGreaterThanOrEqual(10);
    expect(eventsOf('lockout', { email: user.email, ip: '127.0.0.1', after: 'login_failed' })).toHaveLength(1);
    expect(eventsOf('lockout', { email: user.email, ip: '127.0.0.2' })).toHaveLength(0);
  });

  it('answers every failed verify-otp the same, 2FA users included; totp_required only for a right code', async () => {
    const refused = async (body: Record<string, unknown>) => {
      const res = await app.post('/api/auth/verify-otp', body);
      expect({ status: res.status, body: res.body }, JSON.stringify(body)).toEqual({ status: 401, body: CODE_REFUSED });
    };
    const requestCode = async (email: string) => {
      const code = await codeMailedBy(app.url, email, () => app.post('/api/auth/request-otp', { email }));
      secrets.add(code);
      return code;
    };

    await refused({ email: 'nobody-at-all@example.com', code: '123456' });
    const plain = await newUser();
    await refused({ email: plain.email, code: '123456' }); // no code sent
    const plainCode = await requestCode(plain.email);
    await refused({ email: plain.email, code: otherThan(plainCode) });
    expect((await app.post('/api/auth/verify-otp', { email: plain.email, code: plainCode })).status).toBe(200);
    await refused({ email: plain.email, code: plainCode }); // used

    const expiring = await requestCode(plain.email);
    await app.running.app
      .get(DbService)
      .db.update(emailOtpCodes)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(emailOtpCodes.email, plain.email));
    await refused({ email: plain.email, code: expiring }); // expired

    const suspended = await newUser();
    const suspendedCode = await requestCode(suspended.email);
    await app.running.app.get(UsersService).setStatus(suspended.id, 'suspended');
    await refused({ email: suspended.email, code: suspendedCode }); // inactive user, right code

    const twoFactor = await newUser(true);
    const code = await requestCode(twoFactor.email);
    const totp = await codeFor(twoFactor.secret, 1);
    secrets.add(totp);
    await refused({ email: twoFactor.email, code: otherThan(code) }); // wrong code, no second factor: nothing about 2FA
    await refused({ email: twoFactor.email, code: otherThan(code), totpCode: totp });
    const bare = await app.post('/api/auth/verify-otp', { email: twoFactor.email, code });
    expect(bare.status).toBe(401);
    expect(bare.body.code).toBe('totp_required');
    await refused({ email: twoFactor.email, code, totpCode: otherThan(totp) }); // right code, wrong second factor
    const ok = await app.post('/api/auth/verify-otp', { email: twoFactor.email, code, totpCode: totp });
    expect(ok.status).toBe(200);

    expect(eventsOf('otp_failed', { email: plain.email, method: 'email_otp', ip: '127.0.0.1' }).length).toBeGreaterThanOrEqual(3);
    expect(eventsOf('otp_failed', { email: suspended.email, reason: 'inactive' })).toHaveLength(1);
    expect(eventsOf('second_factor_failed', { userId: twoFactor.id, method: 'email_otp', ip: '127.0.0.1' })).toHaveLength(1);
  });

  it('answers request-otp without waiting for the lookup, the code or the mail: the same work for every address', async () => {
    const users = app.running.app.get(UsersService);
    const known = await newUser();
    const unknown = `not-a-user-${Date.now().toString(36)}@example.com`;
    // Hold the lookup of both addresses until the answers are in: an answer that depended on it could not come.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const lookup = users.findByEmail.bind(users);
    const spy = vi.spyOn(users, 'findByEmail').mockImplementation(async (email: string) => {
      if (email === known.email || email === unknown) await held;
      return lookup(email);
    });
    try {
      const within = <T>(promise: Promise<T>) => Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('request-otp waited for the lookup')), 5_000))]);
      const answers = await within(Promise.all([app.post('/api/auth/request-otp', { email: known.email }), app.post('/api/auth/request-otp', { email: unknown })]));
      expect(answers.map((a) => [a.status, a.body])).toEqual([
        [204, ''],
        [204, ''],
      ]);
      expect((await app.get(`/api/dev/mail?to=${encodeURIComponent(known.email)}`)).body).toEqual([]);
      // Its outbox is empty (above), so any mail with a code is the one the held job sends after release
      // (a snapshot of the outbox taken after release could already hold it and wait in vain).
      release();
      // The queued job does the rest: the known address gets its code, the unknown one nothing.
      const code = await waitForMailedCode(app.url, known.email, new Set());
      secrets.add(code);
      expect((await app.post('/api/auth/verify-otp', { email: known.email, code })).status).toBe(200);
      await vi.waitFor(() => expect(spy.mock.calls.map(([email]) => email)).toContain(unknown), { timeout: 10_000, interval: 100 });
      expect((await app.get(`/api/dev/mail?to=${encodeURIComponent(unknown)}`)).body).toEqual([]);
    } finally {
      release();
      spy.mockRestore();
    }
  });

  it('logs failed sign-ins and lockouts as security.* lines with who and where, never a password or code', () => {
    const logged = securityLines();
    const events = new Set(logged.map((entry) => entry.event));
    for (const event of ['security.login_failed', 'security.otp_failed', 'security.second_factor_failed', 'security.lockout']) expect(events).toContain(event);
    for (const entry of logged) {
      expect(entry.ip, JSON.stringify(entry)).toEqual(expect.any(String));
      expect(entry.userId ?? entry.email ?? entry.inviteId, JSON.stringify(entry)).toEqual(expect.any(String));
      const text = JSON.stringify(entry);
      for (const secret of secrets) {
        const pattern = /^\d{6}$/.test(secret) ? new RegExp(`(?<!\\d)${secret}(?!\\d)`) : new RegExp(secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
        expect(text, `a secret in ${text}`).not.toMatch(pattern);
      }
    }
  });
});
