import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productionEnv } from '../support/env.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('APP_ENV=production', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ seeded: false, env: productionEnv({ BOOTSTRAP_TOKEN: 'prod-bootstrap-token' }) });
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
    const res = await app.post(
      '/api/bootstrap',
      { email: 'ops@example.com', password: 'a long production password', name: 'Ops' },
      { headers: { 'x-bootstrap-token': 'prod-bootstrap-token' } },
    );
    expect(res.status).toBe(201);
    const me = await app.get('/api/auth/me', { token: res.body.token });
    expect(me.body).toMatchObject({ platformRole: 'superadmin', landing: '/ops/clients' });
    expect((await app.get('/ready')).status).toBe(200);
  });
});
