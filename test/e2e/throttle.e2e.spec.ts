import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../src/modules/auth/index.js';
import { UsersService } from '../../src/modules/users/index.js';
import { OrgsService } from '../../src/modules/orgs/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chatACall, emailCall, messagingACall, STRIPE_WEBHOOK, vendorsWithoutWebhook, vendorWebhookPaths } from '../support/webhooks.js';

const PASSWORD = 'demo1234';

function expect429(res: { status: number; headers: Headers; body: any }, limit: number, windowS = 60) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ statusCode: 429, code: 'rate_limit', error: 'ThrottlerException', message: expect.any(String) });
  expect(res.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  const nowS = Date.now() / 1000;
  expect(reset).toBeGreaterThan(nowS - 1);
  expect(reset).toBeLessThanOrEqual(nowS + windowS + 1);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

describe('global throttle (spec 7.1, 8)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { THROTTLE_IP_PER_MINUTE: '5', THROTTLE_ORG_PER_MINUTE: '8' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('limits anonymous callers per IP with the headers and body of spec 7.1', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 6; i++) {
      last = await app.get('/api/dev/mail?limit=1');
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect429(last!, 5);
    // Vendor webhooks are outside the per-IP throttle (API-MAP: a vendor posts for many orgs from
    // few addresses): the spent address still reaches them, and they answer for themselves.
    // Every route marked @VendorWebhook, so a new webhook is covered without being listed here.
    const webhooks = vendorWebhookPaths(app);
    expect(webhooks.length).toBeGreaterThan(0);
    expect(vendorsWithoutWebhook(webhooks)).toEqual([]);
    for (const path of webhooks) {
      const refused = path === STRIPE_WEBHOOK ? 404 : 401;
      for (let i = 0; i < 3; i++) expect((await app.post(path, { unsigned: true })).status, path).toBe(refused);
    }
    expect429(await app.get('/api/dev/mail?limit=1'), 5);
    // The probes are outside the throttle (a load balancer calls them all day from one address):
    // the spent address still gets them, without a rate-limit header.
    for (const path of ['/health', '/api/health', '/ready', '/api/ready']) {
      const probe = await app.get(path);
      expect(probe.status, path).toBe(200);
      expect(probe.headers.get('x-ratelimit-limit'), path).toBeNull();
    }
    expect429(await app.get('/api/dev/mail?limit=1'), 5);
  });

  it('shares one budget between all users of an org', async () => {
    const users = app.running.app.get(UsersService);
    const acme = await app.running.app.get(OrgsService).findBySlug('acme');
    // Sign-ins are anonymous requests (per IP): make the tokens directly.
    const a = await users.findByEmail('client@acme.demo.invalid');
    const b = await users.findByEmail('org_admin@acme.demo.invalid');
    const sign = async (u: NonNullable<typeof a>) => (await app.running.app.get(AuthService).startSession(u, 'test')).token;
    const tokenA = await sign(a!);
    const tokenB = await sign(b!);
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) seen.push((await app.get('/api/auth/me', { token: tokenA })).status);
    for (let i = 0; i < 4; i++) seen.push((await app.get(`/api/orgs/${acme!.id}`, { token: tokenB })).status);
    expect(seen).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
    const over = await app.get('/api/auth/me', { token: tokenB });
    expect429(over, 8);
    // Another principal (no org: keyed by user) still has its own budget.
    const expert = await users.findByEmail('expert@platform.demo.invalid');
    const tokenE = await sign(expert!);
    expect((await app.get('/api/auth/me', { token: tokenE })).status).toBe(200);
  });

  it('reports the remaining budget on successful answers', async () => {
    const users = app.running.app.get(UsersService);
    const u = await users.findByEmail('expert2@platform.demo.invalid');
    const { token } = await app.running.app.get(AuthService).startSession(u!, 'test');
    const res = await app.get('/api/auth/me', { token });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('8');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('7');
  });
});

describe('vendor webhooks and the per-IP throttle (API-MAP.md "Channel bindings and vendor traffic")', () => {
  const IP_LIMIT = 5;
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({
      env: {
        THROTTLE_IP_PER_MINUTE: String(IP_LIMIT),
        PUBLIC_URL: 'https://service.example.com',
        CHAT_A_SIGNING_SECRET: 'chat-a-secret',
        EMAIL_INBOUND_SIGNING_SECRET: 'email-secret',
        MESSAGING_A_AUTH_TOKEN: 'messaging-a-token',
        MESSAGING_A_NUMBER_POOL: '+15550000001',
      },
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('takes far more signed vendor calls from one address than the per-IP limit, all accepted, without spending its budget', async () => {
    const calls = Array.from({ length: 4 * IP_LIMIT }, (_, i) => [
      chatACall('chat-a-secret', { type: 'event_callback', team_id: 'T-ONE-IP', event_id: `Ev-${i}`, event: { type: 'message', channel: 'C1', user: 'U1', text: `m${i}`, ts: `1700000000.${i}` } }),
      messagingACall('https://service.example.com', 'messaging-a-token', { MessageSid: `SM-ip-${i}`, From: '+15557654321', To: '+15550000001', Body: `m${i}` }),
      emailCall('email-secret', `From: a@b.example.com\r\nTo: nobody@workspace.example.com\r\nMessage-ID: <ip-${i}@b.example.com>\r\n\r\nm${i}\r\n`),
    ]).flat();
    for (const call of calls) {
      const res = await app.request('POST', call.path, { body: call.body, headers: call.headers });
      expect(res.status, `${call.path} ${JSON.stringify(res.body)}`).toBe(200);
    }
    // The address's own budget is untouched: IP_LIMIT anonymous requests pass, the next is refused.
    for (let i = 0; i < IP_LIMIT; i++) expect((await app.get('/api/dev/mail?limit=1')).status).toBe(200);
    expect429(await app.get('/api/dev/mail?limit=1'), IP_LIMIT);
  });
});

describe('password guessing', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers 429 after 10 wrong passwords for one address, even with the right one', async () => {
    const email = 'expert2@platform.demo.invalid';
    for (let i = 0; i < 10; i++) expect((await app.post('/api/auth/login', { email, password: `wrong-${i}` })).status).toBe(401);
    const locked = await app.post('/api/auth/login', { email, password: PASSWORD });
    expect429(locked, 10, 15 * 60);
    expect((await app.post('/api/auth/login', { email: 'expert@platform.demo.invalid', password: PASSWORD })).status).toBe(200);
  });
});
