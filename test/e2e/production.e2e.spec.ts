import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLogDestination } from '../../src/platform/observability/logger.js';
import { productionEnv } from '../support/env.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const METRICS_TOKEN = 'metrics-token-of-the-production-test-0123456789';

describe('APP_ENV=production', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ seeded: false, env: productionEnv({ BOOTSTRAP_TOKEN: 'prod-bootstrap-token', METRICS_TOKEN }) });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('has no demo-login, demo accounts or dev mail routes', async () => {
    for (const [method, path] of [
      ['POST', '/api/auth/demo-login'],
      ['GET', '/api/auth/demo-accounts'],
      ['GET', '/api/dev/mail'],
    ] as const) {
      const res = await app.request(method, path, method === 'POST' ? { body: { role: 'superadmin' } } : {});
      expect(res.status, path).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    const docs = await app.get('/api/docs');
    expect(Object.keys(docs.body.paths)).not.toContain('/api/auth/demo-login');
  });

  it('starts empty (no demo data) and is bootstrapped with the token', async () => {
    expect((await app.post('/api/auth/login', { email: 'superadmin@platform.demo.invalid', password: 'demo1234' })).status).toBe(401);
    const res = await app.post('/api/bootstrap', { email: 'ops@example.com', password: 'a long production password', name: 'Ops' }, { headers: { 'x-bootstrap-token': 'prod-bootstrap-token' } });
    expect(res.status).toBe(201);
    const me = await app.get('/api/auth/me', { token: res.body.token });
    expect(me.body).toMatchObject({ platformRole: 'superadmin', landing: '/ops/clients' });
    expect((await app.get('/ready')).status).toBe(200);
  });

  it('serves /metrics only with the METRICS_TOKEN bearer, at the root and under /api', async () => {
    for (const path of ['/metrics', '/api/metrics']) {
      for (const authorization of [undefined, 'Bearer wrong', `Bearer ${METRICS_TOKEN}x`, `Bearer ${METRICS_TOKEN.slice(0, -1)}`, METRICS_TOKEN, `Basic ${METRICS_TOKEN}`]) {
        const res = await app.get(path, { headers: authorization ? { authorization } : {} });
        expect(res.status, `${path} ${authorization}`).toBe(401);
        expect(res.body).toMatchObject({ statusCode: 401, code: 'unauthorized' });
        expect(JSON.stringify(res.body)).not.toContain('process_cpu');
      }
      const ok = await app.get(path, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(ok.status).toBe(200);
      expect(ok.body).toContain('process_cpu_user_seconds_total');
    }
  });

  it('takes the metrics bearer for its own secret, never for a refused user token (no security line per scrape)', async () => {
    const lines: string[] = [];
    setLogDestination({ write: (line: string) => void lines.push(line) });
    const probe = await startTestApp({ seeded: false, env: productionEnv({ METRICS_TOKEN, LOG_LEVEL: 'info' }) });
    try {
      expect((await probe.get('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);
      expect((await probe.get('/api/auth/me', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(401);
    } finally {
      setLogDestination(undefined);
      await probe.close();
    }
    const refused = lines.filter((l) => l.includes('security.token_refused'));
    // The same bearer sent to a user route is a refused token; the scrape is not.
    expect(refused).toHaveLength(1);
  });
});

describe('APP_ENV=production without METRICS_TOKEN or SMTP_URL', () => {
  let app: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    setLogDestination({ write: (line: string) => void lines.push(line) });
    app = await startTestApp({ seeded: false, env: productionEnv({ LOG_LEVEL: 'error' }) });
  });
  afterAll(async () => {
    await app?.close();
    setLogDestination(undefined);
  });

  it('says at boot, at error level, that no mail will reach anyone', () => {
    const said = lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => /SMTP_URL/.test(l.msg));
    expect(said).toEqual([expect.objectContaining({ level: 50, msg: expect.stringMatching(/no mail is sent .*sign-in codes.*never reach anyone/) })]);
  });

  it('hides /metrics (404), whatever is sent', async () => {
    for (const path of ['/metrics', '/api/metrics']) {
      for (const headers of [{}, { authorization: 'Bearer anything' }, { authorization: 'Bearer ' }] as Array<Record<string, string>>) {
        const res = await app.get(path, { headers });
        expect(res.status, path).toBe(404);
        expect(res.body).toEqual({ statusCode: 404, code: 'not_found', error: 'Not Found', message: 'Route not found' });
      }
    }
    expect((await app.get('/health')).status).toBe(200);
  });
});
