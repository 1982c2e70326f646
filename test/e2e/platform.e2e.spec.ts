import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgsService } from '../../src/modules/orgs/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';

describe('operations endpoints and the OpenAPI document', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers /health, /ready and /metrics at the root and under /api', async () => {
    for (const prefix of ['', '/api']) {
      const health = await app.get(`${prefix}/health`);
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: 'ok' });
      const ready = await app.get(`${prefix}/ready`);
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ready', checks: { database: true, migrations: true, queue: true } });
      const metrics = await app.get(`${prefix}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toMatch(/text\/plain/);
      expect(metrics.body).toContain('process_cpu_user_seconds_total');
    }
    const metrics = await app.get('/metrics');
    expect(metrics.body).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/api\/health"[^}]*status_code="200"/);
  });

  it('answers the probes at the door: HEAD as GET without a body, a query ignored, other methods left to the router', async () => {
    const head = await app.request('HEAD', '/health');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers.get('content-length')).toBe(String(JSON.stringify({ status: 'ok' }).length));
    expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(head.headers.get('x-content-type-options')).toBe('nosniff');
    expect(head.headers.get('x-request-id')).toBeNull();
    const query = await app.get('/api/ready?verbose=1');
    expect(query.status).toBe(200);
    expect(query.body).toMatchObject({ status: 'ready' });
    const post = await app.request('POST', '/api/health');
    expect(post.status).toBe(404);
    expect(post.body).toMatchObject({ code: 'not_found' });
    const metrics = await app.get('/metrics');
    expect(metrics.body).toMatch(/http_request_duration_seconds_count\{[^}]*method="HEAD"[^}]*route="\/api\/health"[^}]*status_code="200"\} [1-9]/);
  });

  it('serves an OpenAPI document generated from the route schemas', async () => {
    const res = await app.get('/api/docs');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    const login = res.body.paths['/api/auth/login'].post;
    expect(login.requestBody.content['application/json'].schema.required).toEqual(['email', 'password']);
    expect(login.security).toEqual([]);
    expect(res.body.paths['/api/auth/me'].get.security).toEqual([{ bearer: [] }]);
    expect(res.body.paths['/api/orgs/{orgId}'].get.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'orgId', in: 'path' })]));
    expect(res.body.paths['/api/ops/audit'].get.description).toMatch(/superadmin/);
    // Success statuses are the ones the routes answer (@HttpCode included), with their media type.
    expect(Object.keys(login.responses)).toContain('200');
    expect(Object.keys(login.responses)).not.toContain('201');
    expect(Object.keys(res.body.paths['/api/channels/chat-a/events'].post.responses)).toContain('200');
    expect(Object.keys(res.body.paths['/api/channels/chat-a/events'].post.responses)).not.toContain('201');
    expect(res.body.paths['/api/channels/messaging-a/inbound'].post.responses['200'].content).toHaveProperty(['text/xml']);
    expect(Object.keys(res.body.paths['/api/auth/logout'].post.responses)).toContain('204');
    expect(Object.keys(res.body.paths['/api/orgs/{orgId}/integrations'].post.responses)).toContain('201');
  });

  it('serves the web app for page routes, not for /api', async () => {
    const page = await app.get('/client/chat');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect((await app.get('/api/client/chat')).status).toBe(404);
  });
});

describe('authorization guards', () => {
  let app: TestApp;
  let acmeId: string;
  let otherOrgId: string;
  beforeAll(async () => {
    app = await startTestApp();
    const orgs = app.running.app.get(OrgsService);
    acmeId = (await orgs.findBySlug('acme'))!.id;
    otherOrgId = (
      await orgs.create({
        legalName: 'Globex',
        slug: 'globex',
        industry: 'manufacturing',
        corporateDomains: ['globex.example.com'],
        adminEmail: 'admin@globex.example.com',
        website: 'https://globex.example.com',
        timezone: 'America/New_York',
        status: 'active',
      })
    ).id;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('lets members read their own org and answers 404 for another org', async () => {
    const client = await app.login('client@acme.demo.invalid', PASSWORD);
    const own = await app.get(`/api/orgs/${acmeId}`, { token: client });
    expect(own.body).toMatchObject({ id: acmeId });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: acmeId, slug: 'acme', status: 'active' });
    const other = await app.get(`/api/orgs/${otherOrgId}`, { token: client });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ statusCode: 404, code: 'not_found', error: 'Not Found', message: 'Organization not found' });
  });

  it('lets account managers read any org; experts only reach orgs through grants', async () => {
    const am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    expect((await app.get(`/api/orgs/${otherOrgId}`, { token: am })).status).toBe(200);
    const expert = await app.login('expert@platform.demo.invalid', PASSWORD);
    expect((await app.get(`/api/orgs/${otherOrgId}`, { token: expert })).status).toBe(404);
  });

  it('validates path parameters', async () => {
    const am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    const res = await app.get('/api/orgs/not-a-uuid', { token: am });
    expect(res.status).toBe(404);
  });

  it('keeps superadmin routes to superadmins with a 403 body', async () => {
    const expert = await app.login('expert@platform.demo.invalid', PASSWORD);
    const res = await app.get('/api/ops/audit', { token: expert });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ statusCode: 403, code: 'forbidden', error: 'Forbidden', message: 'Your role does not allow this' });
    expect((await app.get('/api/ops/audit')).status).toBe(401);
  });

  it('lists audit rows platform-wide with filters and cursor pages', async () => {
    const admin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    await app.login('client@acme.demo.invalid', PASSWORD);
    const me = await app.get('/api/auth/me', { token: admin });
    const page = await app.get(`/api/ops/audit?action=auth.login&actorId=${me.body.id}&limit=1`, { token: admin });
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(1);
    expect(page.body.items[0]).toMatchObject({ action: 'auth.login', userId: me.body.id, resourceId: me.body.id });
    const all = await app.get('/api/ops/audit?action=auth.login&limit=2', { token: admin });
    expect(all.body.nextCursor).toEqual(expect.any(String));
    const next = await app.get(`/api/ops/audit?action=auth.login&limit=2&cursor=${all.body.nextCursor}`, { token: admin });
    expect(next.status).toBe(200);
    const ids = new Set([...all.body.items, ...next.body.items].map((i: { id: string }) => i.id));
    expect(ids.size).toBe(all.body.items.length + next.body.items.length);
    expect((await app.get('/api/ops/audit?cursor=garbage', { token: admin })).status).toBe(400);
  });
});
