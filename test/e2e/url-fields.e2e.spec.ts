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

describe('URL fields accept http(s) only (website, logoUrl, avatarUrl)', () => {
  let app: TestApp;
  let superadmin: string;
  let am: string;
  let orgId: string;
  let specialistId: string;
  const org = (slug: string) => ({ legalName: 'Url Test', slug, industry: 'technology', corporateDomains: [`${slug}.example.com`], adminEmail: `admin@${slug}.example.com`, website: `https://${slug}.example.com`, timezone: 'UTC' });
  const specialist = { name: 'Url Test', slug: 'url-test', skillTags: [], persona: '', monthly_rate_config: { base_rate: 100, currency: 'usd' } };

  beforeAll(async () => {
    app = await startTestApp();
    superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    const created = await app.post('/api/am/orgs', { ...org('url-test'), logoUrl: 'https://cdn.example.com/logo.png' }, { token: am });
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

  it('refuses other schemes in an org website and logo, on create and on update, and stores nothing', async () => {
    for (const [i, url] of HOSTILE.entries()) {
      refused(await app.post('/api/am/orgs', { ...org(`url-bad-${i}`), website: url }, { token: am }), 'website');
      refused(await app.post('/api/am/orgs', { ...org(`url-bad-${i}`), logoUrl: url }, { token: am }), 'logoUrl');
      refused(await app.patch(`/api/am/orgs/${orgId}`, { website: url }, { token: am }), 'website');
      refused(await app.patch(`/api/am/orgs/${orgId}`, { logoUrl: url }, { token: am }), 'logoUrl');
      expect((await app.get(`/api/am/slug-availability?slug=url-bad-${i}`, { token: am })).body).toMatchObject({ available: true });
    }
    const stored = await app.get(`/api/orgs/${orgId}`, { token: am });
    expect(stored.body).toMatchObject({ website: 'https://url-test.example.com', logoUrl: 'https://cdn.example.com/logo.png' });
    expect((await app.patch(`/api/am/orgs/${orgId}`, { website: 'http://url-test.example.org/', logoUrl: null }, { token: am })).status).toBe(200);
  });

  it('refuses other schemes in a Specialist avatar, on create and on update', async () => {
    for (const url of HOSTILE) {
      refused(await app.post('/api/specialists', { ...specialist, slug: 'url-bad', avatarUrl: url }, { token: superadmin }), 'avatarUrl');
      refused(await app.patch(`/api/specialists/${specialistId}`, { avatarUrl: url }, { token: superadmin }), 'avatarUrl');
    }
    expect((await app.get(`/api/specialists/${specialistId}`, { token: superadmin })).body.avatarUrl).toBe('http://cdn.example.com/a.png');
  });
});
