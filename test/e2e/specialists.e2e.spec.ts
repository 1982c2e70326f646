import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
const persona = {
  name: 'Zoë Quinn-Adams',
  slug: 'zoe-quinn-adams',
  avatarUrl: 'https://cdn.example.com/zoe.png',
  routingEmail: 'Zoe@Routing.example.com',
  skillTags: ['support', 'spanish'],
  persona: 'You are Zoë.',
  monthly_rate_config: { base_rate: 990, currency: 'eur' },
};

describe('Specialist catalog (spec 2.2)', () => {
  let app: TestApp;
  let superadmin: string;
  let am: string;
  beforeAll(async () => {
    app = await startTestApp();
    superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('lets a superadmin create a persona and AMs read the pool', async () => {
    const created = await app.post('/api/specialists', persona, { token: superadmin });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Zoë Quinn-Adams',
      slug: 'zoe-quinn-adams',
      routingEmail: 'zoe@routing.example.com',
      skillTags: ['support', 'spanish'],
      monthly_rate_config: { base_rate: 990, currency: 'EUR' },
    });
    expect(created.body).not.toHaveProperty('email_alias');
    const pool = await app.get('/api/am/specialists?limit=200', { token: am });
    expect(pool.status).toBe(200);
    expect(pool.body.items.map((s: { slug: string }) => s.slug)).toEqual(expect.arrayContaining(['emilie-laurent', 'jean-luc-moreau', 'zoe-quinn-adams']));
    expect(pool.body.nextCursor).toBeNull();
    expect((await app.get(`/api/specialists/${created.body.id}`, { token: am })).body.name).toBe('Zoë Quinn-Adams');
  });

  it('pages the pool with a cursor', async () => {
    const first = await app.get('/api/specialists?limit=2', { token: am });
    expect(first.body.items).toHaveLength(2);
    const second = await app.get(`/api/specialists?limit=2&cursor=${first.body.nextCursor}`, { token: am });
    expect(second.body.items[0].id).not.toBe(first.body.items[1].id);
  });

  it('never lets an AM (or anyone but a superadmin) create or edit personas', async () => {
    const expert = await app.login('expert@platform.demo.invalid', PASSWORD);
    const client = await app.login('client@acme.demo.invalid', PASSWORD);
    for (const token of [am, expert, client]) {
      expect((await app.post('/api/specialists', { ...persona, slug: 'not-allowed' }, { token })).status).toBe(403);
    }
    const id = (await app.get('/api/specialists?limit=1', { token: am })).body.items[0].id;
    expect((await app.patch(`/api/specialists/${id}`, { name: 'Renamed' }, { token: am })).status).toBe(403);
    for (const token of [expert, client]) expect((await app.get('/api/specialists', { token })).status).toBe(403);
  });

  it('edits only the fields sent, and refuses duplicate slugs and bad input', async () => {
    const created = (await app.post('/api/specialists', { ...persona, slug: 'edit-me' }, { token: superadmin })).body;
    const edited = await app.patch(`/api/specialists/${created.id}`, { name: 'Edited Name' }, { token: superadmin });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: 'Edited Name', skillTags: ['support', 'spanish'], persona: 'You are Zoë.' });
    expect((await app.patch(`/api/specialists/${created.id}`, { slug: 'zoe-quinn-adams' }, { token: superadmin })).status).toBe(409);
    expect((await app.post('/api/specialists', persona, { token: superadmin })).status).toBe(409);
    const bad = await app.post('/api/specialists', { ...persona, slug: '-bad', monthly_rate_config: { base_rate: -1, currency: 'euro' } }, { token: superadmin });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['monthly_rate_config.base_rate', 'monthly_rate_config.currency', 'slug']);
    expect((await app.patch(`/api/specialists/${created.id}`, {}, { token: superadmin })).status).toBe(400);
    expect((await app.get('/api/specialists/00000000-0000-4000-8000-000000000000', { token: am })).status).toBe(404);
  });

  it('audits persona writes', async () => {
    const audit = await app.get('/api/ops/audit?action=specialist.created', { token: superadmin });
    expect(audit.body.items.length).toBeGreaterThan(0);
    expect(audit.body.items[0]).toMatchObject({ action: 'specialist.created', userId: expect.any(String), resourceId: expect.any(String) });
  });
  it('searches the catalog by name, handle, routing email or skill, case-insensitively', async () => {
    const created = await app.post('/api/specialists', { name: 'Searchable Sage', slug: 'searchable-sage', routingEmail: 'sage@route.example.com', skillTags: ['Tax-Law'] }, { token: superadmin });
    expect(created.status).toBe(201);
    for (const q of ['SEARCHABLE', 'able-sa', 'sage@route', 'tax-law']) {
      const res = await app.get(`/api/specialists?q=${encodeURIComponent(q)}`, { token: am });
      expect(res.status, q).toBe(200);
      expect(
        res.body.items.map((s: { id: string }) => s.id),
        q,
      ).toEqual([created.body.id]);
    }
    // A pattern character is matched literally, not as a wildcard.
    expect((await app.get('/api/specialists?q=%25', { token: am })).body.items).toEqual([]);
    expect((await app.get(`/api/specialists?q=${'x'.repeat(201)}`, { token: am })).status).toBe(400);
  });

  it('takes the catalog rate away with null, and refuses a rate out of range with its limit', async () => {
    const created = await app.post('/api/specialists', { name: 'Rate Less', slug: 'rate-less', monthly_rate_config: { base_rate: 500, currency: 'usd' } }, { token: superadmin });
    expect(created.body.monthly_rate_config).toEqual({ base_rate: 500, currency: 'USD' });
    const cleared = await app.patch(`/api/specialists/${created.body.id}`, { monthly_rate_config: null }, { token: superadmin });
    expect(cleared.status).toBe(200);
    expect(cleared.body.monthly_rate_config).toBeNull();
    const tooMuch = await app.patch(`/api/specialists/${created.body.id}`, { monthly_rate_config: { base_rate: 1_000_001, currency: 'USD' } }, { token: superadmin });
    expect(tooMuch.status).toBe(400);
    expect(JSON.stringify(tooMuch.body.details)).toContain('1,000,000');
    const badAvatar = await app.patch(`/api/specialists/${created.body.id}`, { avatarUrl: 'javascript:alert(1)' }, { token: superadmin });
    expect(badAvatar.status).toBe(400);
  });
});
