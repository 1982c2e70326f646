import { createHmac, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { billingSignature } from '../../src/modules/billing/webhook.verify.js';
import { OnboardingService } from '../../src/modules/onboarding/index.js';
import { UsersService } from '../../src/modules/users/index.js';
import { safeEqual } from '../../src/platform/crypto/crypto.js';
import { setLogDestination } from '../../src/platform/observability/logger.js';
import { FakeProvider } from '../support/llm-provider.js';
import { codeMailedBy } from '../support/mail.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { connectVerified, messagingACall } from '../support/webhooks.js';

// Every compare of a secret goes through safeEqual: the spy shows which values each route compared.
vi.mock('../../src/platform/crypto/crypto.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/platform/crypto/crypto.js')>();
  return { ...actual, safeEqual: vi.fn(actual.safeEqual) };
});

const secret = (label: string) => `${label}-${randomBytes(12).toString('hex')}`;
const SECRETS = {
  chatA: secret('chat-a-signing'),
  email: secret('email-signing'),
  messagingA: secret('messaging-a-token'),
  billing: secret('billing-webhook'),
  bootstrap: secret('bootstrap'),
  llmKey: secret('llm-api-key'),
  botToken: secret('bot-token'),
  webhookSecret: secret('messaging-b-secret'),
  chatABotToken: secret('xoxb'),
};
const PUBLIC_URL = 'https://service.example.com';
const POOL = '+15550000001';
const PASSWORD = 'demo1234';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on: the vendor APIs are down, so replies fail and say so in the logs. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Secrets never reach the logs (spec 5.7; the logger's redaction), and every signature or shared
 * secret of the webhooks, the bootstrap token and the one-time codes is compared in constant time
 * (API-MAP.md "Channels": "a constant-time compare"). One app at trace level, its log lines
 * captured, while it signs users in with passwords, codes and second factors, stores integration
 * secrets, takes signed webhooks, fails to reach the model and the vendors, and impersonates.
 */
describe('secrets stay out of the logs; secrets are compared in constant time', () => {
  let app: TestApp;
  let provider: FakeProvider;
  const lines: string[] = [];
  /** Every secret value the flows below use or receive. */
  const used = new Set<string>([...Object.values(SECRETS), PASSWORD]);
  /** Codes of six digits: matched as whole numbers (a timestamp contains any six digits). */
  const codes = new Set<string>();
  const compared = () => vi.mocked(safeEqual).mock.calls.map(([a, b], i) => ({ a, b, result: vi.mocked(safeEqual).mock.results[i]!.value as boolean }));
  const mail = async (to: string) => (await app.get(`/api/dev/mail?to=${encodeURIComponent(to)}&limit=1`)).body[0] as { text: string };
  const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)![1]!;

  beforeAll(async () => {
    provider = new FakeProvider();
    const llm = await provider.start();
    const down = `http://127.0.0.1:${await closedPort()}`;
    setLogDestination({ write: (line: string) => void lines.push(line) });
    app = await startTestApp({
      env: {
        LOG_LEVEL: 'trace',
        PUBLIC_URL,
        BOOTSTRAP_TOKEN: SECRETS.bootstrap,
        CHAT_A_SIGNING_SECRET: SECRETS.chatA,
        EMAIL_INBOUND_SIGNING_SECRET: SECRETS.email,
        MESSAGING_A_AUTH_TOKEN: SECRETS.messagingA,
        MESSAGING_A_NUMBER_POOL: POOL,
        BILLING_WEBHOOK_SECRET: SECRETS.billing,
        LLM_PROVIDER: 'openai-compatible',
        LLM_BASE_URL: llm,
        LLM_MODEL: 'gpt-4o-mini',
        LLM_API_KEY: SECRETS.llmKey,
        LLM_TIMEOUT_MS: '2000',
        MESSAGING_B_API_BASE_URL: down,
        CHAT_A_API_BASE_URL: down,
      },
    });
    const keys = app.running.config.keys;
    used.add(keys.encryptionKey.toString('base64'));
    used.add(keys.jwtPrivateKeyPem.split('\n').find((l) => l.length > 40 && !l.startsWith('-----'))!);
  });
  afterAll(async () => {
    await app?.close();
    await provider?.stop();
    setLogDestination(undefined);
  });

  it('signs in with passwords, emailed codes, reset codes, two-factor codes and recovery codes', async () => {
    const owner = await app.login('org_admin@acme.demo.invalid', PASSWORD);
    used.add(owner);
    expect((await app.post('/api/auth/login', { email: 'org_admin@acme.demo.invalid', password: `${PASSWORD}-wrong` })).status).toBe(401);
    used.add(`${PASSWORD}-wrong`);

    const email = 'secretive@acme.example.com';
    const password = secret('pw');
    used.add(password);
    const user = await app.running.app.get(UsersService).create({ email, name: 'Secretive', platformRole: 'org_member', password });
    const token = await app.login(email, password);
    used.add(token);

    // Emailed sign-in code, a wrong one first.
    const otp = await codeMailedBy(app.url, email, async () => expect((await app.post('/api/auth/request-otp', { email })).status).toBe(204));
    codes.add(otp);
    const wrongOtp = otp === '000000' ? '111111' : '000000';
    vi.mocked(safeEqual).mockClear();
    expect((await app.post('/api/auth/verify-otp', { email, code: wrongOtp })).status).toBe(401);
    expect(
      compared().some((c) => c.result === false),
      'the code is compared with safeEqual',
    ).toBe(true);
    const viaOtp = await app.post('/api/auth/verify-otp', { email, code: otp });
    expect(viaOtp.status).toBe(200);
    used.add(viaOtp.body.token);

    // An administrator-initiated reset: the code reaches only the user's mailbox.
    const superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    used.add(superadmin);
    expect((await app.post(`/api/admin/users/${user.id}/password-reset`, undefined, { token: superadmin })).status).toBe(204);
    const resetCode = codeIn((await mail(email)).text);
    codes.add(resetCode);
    const newPassword = secret('new-pw');
    used.add(newPassword);
    expect((await app.post('/api/auth/reset-password', { email, code: resetCode, password: newPassword })).status).toBe(204);
    const fresh = await app.login(email, newPassword);
    used.add(fresh);

    // Two-factor: the secret, a code, the recovery codes.
    const setup = (await app.post('/api/auth/2fa/setup', undefined, { token: fresh })).body as { secret: string; otpauthUrl: string; recoveryCodes: string[] };
    used.add(setup.secret);
    for (const code of setup.recoveryCodes) used.add(code);
    const totp = await generate({ secret: setup.secret });
    codes.add(totp);
    expect((await app.post('/api/auth/2fa/verify', { code: totp }, { token: fresh })).status).toBe(204);
    expect((await app.post('/api/auth/login', { email, password: newPassword })).body.code).toBe('totp_required');
    const withRecovery = await app.post('/api/auth/login', { email, password: newPassword, recoveryCode: setup.recoveryCodes[0] });
    expect(withRecovery.status).toBe(200);
    used.add(withRecovery.body.token);

    // Impersonation and demo tokens.
    const impersonation = await app.post(`/api/admin/impersonate/${user.id}`, { reason: 'Checking the logs' }, { token: superadmin });
    expect(impersonation.status).toBe(201);
    used.add(impersonation.body.token);
    used.add(await app.demoLogin('ai_operator'));

    // The bootstrap token, wrong and right (a superadmin exists: 409 after the token passes).
    vi.mocked(safeEqual).mockClear();
    const body = { email: 'root@example.com', password: secret('root-pw'), name: 'Root' };
    used.add(body.password);
    expect((await app.request('POST', '/api/bootstrap', { body, headers: { 'x-bootstrap-token': 'not-the-token' } })).status).toBe(401);
    expect(compared()).toContainEqual({ a: 'not-the-token', b: SECRETS.bootstrap, result: false });
    expect((await app.request('POST', '/api/bootstrap', { body, headers: { 'x-bootstrap-token': SECRETS.bootstrap } })).status).toBe(409);
  });

  it('compares every webhook signature and shared secret with safeEqual, over the raw body', async () => {
    const am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    used.add(am);
    const acmeId = (await app.get('/api/auth/me', { token: await app.login('client@acme.demo.invalid', PASSWORD) })).body.orgMemberships[0].orgId as string;
    for (const integration of [
      { channel: 'messaging-b', secrets: { webhookSecret: SECRETS.webhookSecret, botToken: SECRETS.botToken } },
      { channel: 'chat-a', externalId: 'T-SECRETS', config: { botUserId: 'UBOT' }, secrets: { botToken: SECRETS.chatABotToken } },
      { channel: 'messaging-a', config: { whitelist: ['+15557654321'] } },
    ]) {
      const created = await connectVerified(app, acmeId, integration, am);
      expect(JSON.stringify(created)).not.toContain('secret-');
    }
    const post = (path: string, raw: string, headers: Record<string, string>, contentType = 'application/json') =>
      app.request('POST', path, { body: raw, headers: { 'content-type': contentType, ...headers } });
    const expectCompared = async (what: string, send: () => Promise<{ status: number }>, status: number, sent: string, result: boolean) => {
      vi.mocked(safeEqual).mockClear();
      expect((await send()).status, what).toBe(status);
      expect(
        compared().filter((c) => c.a === sent && c.result === result),
        `${what}: ${sent} compared with safeEqual`,
      ).not.toHaveLength(0);
    };

    // chat-a: v0 HMAC-SHA256 of "v0:ts:body".
    const ts = String(Math.floor(Date.now() / 1000));
    const chatBody = JSON.stringify({
      type: 'event_callback',
      team_id: 'T-SECRETS',
      event_id: 'Ev-secret-1',
      event: { type: 'app_mention', user: 'U1', channel: 'C1', ts: '1.1', text: '<@UBOT> hello' },
    });
    const chatSig = `v0=${createHmac('sha256', SECRETS.chatA).update(`v0:${ts}:${chatBody}`).digest('hex')}`;
    const forged = `v0=${'0'.repeat(64)}`;
    await expectCompared('chat-a forged', () => post('/api/channels/chat-a/events', chatBody, { 'x-chat-a-request-timestamp': ts, 'x-chat-a-signature': forged }), 401, forged, false);
    await expectCompared('chat-a signed', () => post('/api/channels/chat-a/events', chatBody, { 'x-chat-a-request-timestamp': ts, 'x-chat-a-signature': chatSig }), 200, chatSig, true);
    used.add(chatSig.slice(3));

    // email: sha256=HMAC of the raw body.
    const emailBody = JSON.stringify({ rawMessage: Buffer.from('From: a@example.com\r\nTo: nobody@workspace.example.com\r\nSubject: hi\r\n\r\nhello').toString('base64') });
    const emailSig = `sha256=${createHmac('sha256', SECRETS.email).update(emailBody).digest('hex')}`;
    await expectCompared('email forged', () => post('/api/channels/email/inbound', emailBody, { 'x-email-signature': `sha256=${'f'.repeat(64)}` }), 401, `sha256=${'f'.repeat(64)}`, false);
    await expectCompared('email signed', () => post('/api/channels/email/inbound', emailBody, { 'x-email-signature': emailSig }), 200, emailSig, true);
    used.add(emailSig.slice(7));

    // messaging-a: base64 HMAC-SHA1 of the URL and the sorted form fields.
    const call = messagingACall(PUBLIC_URL, SECRETS.messagingA, { From: '+15557654321', To: POOL, Body: 'hello', MessageSid: 'SM-secret-1' });
    const maSig = call.headers['x-messaging-a-signature'];
    await expectCompared('messaging-a forged', () => post(call.path, call.body, { ...call.headers, 'x-messaging-a-signature': 'AAAA' }, call.headers['content-type']), 401, 'AAAA', false);
    await expectCompared('messaging-a signed', () => post(call.path, call.body, call.headers, call.headers['content-type']), 200, maSig, true);
    used.add(maSig);

    // messaging-b: the secret token, found by its hash, then compared.
    const update = JSON.stringify({ update_id: 9001, message: { message_id: 1, text: 'hello bot', chat: { id: 77, type: 'private' }, from: { id: 77, first_name: 'Ann' } } });
    await expectCompared('messaging-b', () => post('/api/channels/messaging-b/webhook', update, { 'x-messaging-b-secret-token': SECRETS.webhookSecret }), 200, SECRETS.webhookSecret, true);
    expect((await post('/api/channels/messaging-b/webhook', update, { 'x-messaging-b-secret-token': 'not-the-secret' })).status).toBe(401);

    // billing: t=...,v1=HMAC of "t.body".
    const billingBody = JSON.stringify({ id: 'evt_secret_1', type: 'payment_succeeded', data: { orgId: acmeId } });
    const header = billingSignature(SECRETS.billing, Math.floor(Date.now() / 1000), billingBody);
    const v1 = header.split('v1=')[1]!;
    await expectCompared('billing forged', () => post('/api/billing/provider/webhook', billingBody, { 'x-billing-signature': header.replace(v1, '0'.repeat(64)) }), 401, '0'.repeat(64), false);
    await expectCompared('billing signed', () => post('/api/billing/provider/webhook', billingBody, { 'x-billing-signature': header }), 200, v1, true);
    used.add(v1);

    // Every refused signature above left one structured security line naming its channel (the secrets check below reads them too).
    const refusals = lines.map((l) => JSON.parse(l) as { event?: string; channel?: string }).filter((l) => l.event === 'security.webhook_signature_invalid');
    for (const channel of ['chat-a', 'email', 'messaging-a', 'messaging-b', 'billing'])
      expect(
        refusals.map((r) => r.channel),
        channel,
      ).toContain(channel);
  });

  it('has no plain comparison of a secret anywhere in the sources (===, !==, == against a signature, secret, token, hash or digest)', () => {
    const SECRETISH = /signature|secret|token|digest|hmac|hash/i;
    const PLAIN = /^(undefined|null|true|false|\d+|'[^']*'|"[^"]*"|`[^`]*`)$/;
    const found: string[] = [];
    const files = readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'));
    for (const file of files) {
      readFileSync(join('src', file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const m of line.matchAll(/([\w.?[\]'"`]+)\s*([!=]==?)\s*([\w.?[\]'"`]+)/g)) {
            const [left, right] = [m[1]!, m[3]!];
            const typeofCheck = /typeof\s+$/.test(line.slice(0, m.index));
            if (!typeofCheck && (SECRETISH.test(left) || SECRETISH.test(right)) && !PLAIN.test(left) && !PLAIN.test(right)) found.push(`${file}:${i + 1}: ${line.trim()}`);
          }
        });
    }
    expect(files.length).toBeGreaterThan(100);
    expect(found, 'compare secrets with safeEqual (platform/crypto)').toEqual([]);
  });

  it('lets the model fail and the vendors be down, then finds none of the secrets in any log line', async () => {
    // The accepted messaging-b and chat-a calls get replies that cannot be sent (the vendor APIs are down).
    const deadline = Date.now() + 20_000;
    while (!lines.some((l) => l.includes('outbound reply failed')) && Date.now() < deadline) await sleep(200);
    // A client message while the model fails: the turn fails and says so.
    provider.mode = 'fail';
    const member = await app.login('client@acme.demo.invalid', PASSWORD);
    used.add(member);
    const created = await app.post('/api/conversations', { message: 'Are you there?' }, { token: member });
    expect(created.status).toBe(201);
    while (!lines.some((l) => l.includes('agent turn attempt failed')) && Date.now() < deadline + 20_000) await sleep(200);

    // An unexpected failure on a route whose path carries a secret (the invite token): logged whole, but not the token.
    const am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    const org = await app.post(
      '/api/am/orgs',
      {
        legalName: 'Initrode',
        slug: 'initrode',
        industry: 'technology',
        corporateDomains: ['initrode.example.com'],
        adminEmail: 'peter@initrode.example.com',
        website: 'https://initrode.example.com',
        timezone: 'UTC',
      },
      { token: am },
    );
    const invite = await app.post(`/api/am/orgs/${org.body.id}/invite`, {}, { token: am });
    const inviteToken = new URL(invite.body.onboardingUrl as string).searchParams.get('token')!;
    used.add(inviteToken);
    vi.spyOn(app.running.app.get(OnboardingService), 'view').mockRejectedValueOnce(new Error('database went away'));
    expect((await app.get(`/api/onboarding/${inviteToken}`)).status).toBe(500);
    expect((await app.get(`/api/onboarding/${inviteToken}`)).status).toBe(200);

    // The capture works: the failures are there, at trace level.
    const text = lines.join('');
    expect(text).toContain('outbound reply failed');
    expect(text).toContain('agent turn attempt failed');
    expect(text).toContain('database went away');
    expect(lines.length).toBeGreaterThan(20);

    const leaks = [...used].filter((value) => value.length >= 8 && text.includes(value));
    const codeLeaks = [...codes].filter((code) => new RegExp(`(?<![0-9])${code}(?![0-9])`).test(text));
    expect(leaks, 'secret values found in the logs').toEqual([]);
    expect(codeLeaks, 'one-time codes found in the logs').toEqual([]);
    // Nor the login attempts' passwords in another encoding.
    expect(text).not.toContain(Buffer.from(PASSWORD).toString('base64'));
  });
});
