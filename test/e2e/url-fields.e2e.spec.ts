import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
/** What a browser would run, open or fetch from somewhere else if it were rendered as a link or an image. */
const HOSTILE = [
  'javascript:alert(document.cookie)',
  'JavaScript:alert(1)',
  ' javascript:alert(1)',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'data:image/svg+xml,<svg onload=alert(1)>',
  'file:///etc/passwd',
  'ftp://files.example.com/logo.png',
  'vbscript:msgbox(1)',
];

describe('URL fields accept http(s) only (website, avatarUrl); the org logo is an upload, never a URL', () => {
  let app: TestApp;
  let superadmin: string;
  let am: string;
  let orgId: string;
  let specialistId: string;
  const org = (slug: string) => ({
    legalName: 'Url Test',
    slug,
    industry: 'technology',
    corporateDomains: [`${slug}.example.com`],
    adminEmail: `admin@${slug}.example.com`,
    website: `https://${slug}.example.com`,
    timezone: 'UTC',
  });
  const specialist = { name: 'Url Test', slug: 'url-test', skillTags: [], persona: '', monthly_rate_config: { base_rate: 100, currency: 'usd' } };

  beforeAll(async () => {
    app = await startTestApp();
    superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    const created = await app.post('/api/am/orgs', org('url-test'), { token: am });
    expect(created.status).toBe(201);
    orgId = created.body.id;
    const persona = await app.post('/api/specialists', { ...specialist, avatarUrl: 'http://cdn.example.com/a.png' }, { token: superadmin });
    expect(persona.status).toBe(201);
    specialistId = persona.body.id;
  });
  afterAll(async () => {
    await app?.close();
  });

  const refused = (res: { status: number; body: any }, field: string) => {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, code: 'validation_failed', error: 'Bad Request' });
    expect(res.body.details).toEqual(expect.arrayContaining([{ field, message: 'Must be an http:// or https:// URL' }]));
  };

  it('refuses other schemes in an org website, on create and on update, and stores nothing', async () => {
    for (const [i, url] of HOSTILE.entries()) {
      refused(await app.post('/api/am/orgs', { ...org(`url-bad-${i}`), website: url }, { token: am }), 'website');
      refused(await app.patch(`/api/am/orgs/${orgId}`, { website: url }, { token: am }), 'website');
      expect((await app.get(`/api/am/slug-availability?slug=url-bad-${i}`, { token: am })).body).toMatchObject({ available: true });
    }
    expect((await app.get(`/api/orgs/${orgId}`, { token: am })).body).toMatchObject({ website: 'https://url-test.example.com' });
    expect((await app.patch(`/api/am/orgs/${orgId}`, { website: 'http://url-test.example.org/' }, { token: am })).status).toBe(200);
  });

  it('refuses any logoUrl on create and on update, an https one or null included: the logo is uploaded (test/e2e/org-logo.e2e.spec.ts)', async () => {
    for (const [i, url] of [...HOSTILE, 'https://cdn.example.com/logo.png', null].entries()) {
      const created = await app.post('/api/am/orgs', { ...org(`logo-url-${i}`), logoUrl: url }, { token: am });
      expect(created.status).toBe(400);
      expect(created.body).toMatchObject({ code: 'validation_failed', details: [{ field: 'logoUrl', message: expect.stringMatching(/^The logo is uploaded as a file/) }] });
      const updated = await app.patch(`/api/am/orgs/${orgId}`, { logoUrl: url }, { token: am });
      expect(updated.status).toBe(400);
      expect(updated.body).toMatchObject({ code: 'validation_failed', details: [{ field: 'logoUrl' }] });
      expect((await app.get(`/api/am/slug-availability?slug=logo-url-${i}`, { token: am })).body).toMatchObject({ available: true });
    }
    expect((await app.get(`/api/orgs/${orgId}`, { token: am })).body.logoUrl).toBeNull();
  });

  it('refuses other schemes in a Specialist avatar, on create and on update', async () => {
    for (const url of HOSTILE) {
      refused(await app.post('/api/specialists', { ...specialist, slug: 'url-bad', avatarUrl: url }, { token: superadmin }), 'avatarUrl');
      refused(await app.patch(`/api/specialists/${specialistId}`, { avatarUrl: url }, { token: superadmin }), 'avatarUrl');
    }
    expect((await app.get(`/api/specialists/${specialistId}`, { token: superadmin })).body.avatarUrl).toBe('http://cdn.example.com/a.png');
  });
});
