import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const BASE = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'strict-origin-when-cross-origin', 'x-frame-options': 'DENY' };

/** The directives of a Content-Security-Policy header, by name. */
const directives = (csp: string | null) =>
  new Map(
    (csp ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!, values]),
  );

/** A request written on a socket, for what fetch would refuse to send; answers the status line and headers. */
const rawHead = (url: string, request: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1', () => socket.end(request));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('close', () => resolve(text.split('\r\n\r\n')[0]!.toLowerCase()));
    socket.on('error', reject);
  });

describe('security headers on every response', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { PUBLIC_URL: 'http://localhost:3000' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('sends nosniff, the referrer policy and X-Frame-Options DENY on API answers, errors, 404s, pages, operations and Socket.IO', async () => {
    const deep = '['.repeat(100) + ']'.repeat(100);
    const cases: Array<[string, RequestInit, number]> = [
      ['/api/health', {}, 200],
      ['/health', {}, 200],
      ['/metrics', {}, 200],
      ['/api/docs', {}, 200],
      ['/api/auth/me', {}, 401],
      ['/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":' }, 400],
      ['/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep }, 400],
      ['/api/no/such/route', {}, 404],
      ['/api/orgs/%E0%A4%A', {}, 400],
      ['/', {}, 200],
      ['/client/chat', {}, 200],
      ['/dev/mail', {}, 200],
      ['/socket.io/?EIO=4&transport=polling', {}, 200],
    ];
    for (const [path, init, status] of cases) {
      const res = await rawRequest(`${app.url}${path}`, init);
      expect(res.status, path).toBe(status);
      for (const [name, value] of Object.entries(BASE)) expect(res.headers.get(name), `${name} on ${path}`).toBe(value);
      expect(res.headers.get('strict-transport-security'), path).toBeNull();
    }
    // What the HTTP parser refuses before any route, and a URL fastify cannot route.
    for (const request of ['GARBAGE\r\n\r\n', `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]) {
      const head = await rawHead(app.url, request);
      expect(head).toMatch(/^http\/1.1 4\d\d /);
      for (const [name, value] of Object.entries(BASE)) expect(head).toContain(`${name}: ${value.toLowerCase()}`);
    }
  });

  it("gives HTML a Content-Security-Policy with script-src 'self' (nothing inline) and frame-ancestors 'none'", async () => {
    for (const path of ['/', '/client/chat', '/ops/clients']) {
      const res = await rawRequest(`${app.url}${path}`, {});
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      const csp = directives(res.headers.get('content-security-policy'));
      expect(csp.get('script-src')).toEqual(["'self'"]);
      expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
      expect(csp.get('object-src')).toEqual(["'none'"]);
      expect(csp.get('default-src')).toEqual(["'self'"]);
      expect(csp.has('upgrade-insecure-requests')).toBe(false);
      // No inline script in the page itself: it would not run under this policy.
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    }
  });

  it("gives the API's answers, the metrics and Socket.IO a policy that forbids everything, without the headers only a page reads", async () => {
    for (const path of ['/api/auth/me', '/api/no/such/route', '/api/docs', '/metrics', '/socket.io/?EIO=4&transport=polling']) {
      const res = await rawRequest(`${app.url}${path}`, {});
      expect(res.headers.get('content-type'), path).not.toMatch(/text\/html/);
      const csp = directives(res.headers.get('content-security-policy'));
      expect([...csp.keys()].sort(), path).toEqual(['default-src', 'frame-ancestors']);
      expect(csp.get('default-src'), path).toEqual(["'none'"]);
      expect(csp.get('frame-ancestors'), path).toEqual(["'none'"]);
      expect(res.headers.get('cross-origin-resource-policy'), path).toBe('same-origin');
      for (const name of ['cross-origin-opener-policy', 'origin-agent-cluster', 'x-xss-protection', 'x-dns-prefetch-control', 'x-download-options', 'x-permitted-cross-domain-policies']) {
        expect(res.headers.get(name), `${name} on ${path}`).toBeNull();
      }
    }
    // The probes (a fixed JSON status, read by load balancers all day): the three required headers, nothing more.
    for (const path of ['/api/health', '/health', '/api/ready', '/ready']) {
      const res = await rawRequest(`${app.url}${path}`, {});
      expect(res.status, path).toBe(200);
      const security = [...res.headers.keys()].filter((name) => !['content-type', 'content-length', 'date', 'connection', 'keep-alive'].includes(name));
      expect(security.sort(), path).toEqual(['referrer-policy', 'x-content-type-options', 'x-frame-options']);
    }
    // A page keeps every header helmet gives it.
    const page = await rawRequest(`${app.url}/client/chat`, {});
    for (const name of ['cross-origin-opener-policy', 'origin-agent-cluster', 'x-dns-prefetch-control']) expect(page.headers.get(name), name).not.toBeNull();
  });
});

describe('security headers behind https', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ seeded: false, env: { PUBLIC_URL: 'https://service.example.com' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('adds Strict-Transport-Security and upgrades insecure requests when PUBLIC_URL is https', async () => {
    for (const path of ['/api/health', '/', '/api/no/such/route']) {
      const res = await rawRequest(`${app.url}${path}`, {});
      expect(res.headers.get('strict-transport-security'), path).toMatch(/^max-age=\d{7,}; includeSubDomains$/);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
    expect(directives((await rawRequest(`${app.url}/`, {})).headers.get('content-security-policy')).has('upgrade-insecure-requests')).toBe(true);
  });
});
