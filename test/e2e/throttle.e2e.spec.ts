import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../src/modules/auth/index.js';
import { UsersService } from '../../src/modules/users/index.js';
import { OrgsService } from '../../src/modules/orgs/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

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
    for (const path of ['/api/channels/chat-a/events', '/api/channels/email/inbound', '/api/channels/email/mailgun/mime', '/api/channels/messaging-a/inbound', '/api/channels/messaging-b/webhook', '/api/channels/enterprise-chat/webhook', '/api/channels/enterprise-chat/messages', '/api/billing/provider/webhook']) {
      for (let i = 0; i < 3; i++) expect((await app.post(path, { unsigned: true })).status, path).toBe(401);
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
