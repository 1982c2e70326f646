import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orgsConfig } from '../../src/modules/orgs/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { firstNameOf, previewWorkspaceAlias } from '../../src/contracts/orgs.js';

const PASSWORD = 'demo1234';
const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const step1 = (over: Record<string, unknown> = {}) => ({
  legalName: 'Initech LLC',
  slug: 'initech',
  industry: 'technology',
  corporateDomains: ['initech.example.com', 'initech.example.org'],
  adminEmail: 'Bill@Initech.example.com',
  website: 'https://initech.example.com',
  timezone: 'America/Chicago',
  ...over,
});

describe('AM wizard, Phase 1 (spec 2.1, 4.2)', () => {
  let app: TestApp;
  let am: string;
  let superadmin: string;
  /** Not the default: the preview must follow the deployment's own domain. */
  const WORKSPACE_DOMAIN = 'mail.preview-test.example.net';
  beforeAll(async () => {
    app = await startTestApp({ env: { WORKSPACE_DOMAIN } });
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('lists the 13 industries', async () => {
    const res = await app.get('/api/am/industries', { token: am });
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(13);
    expect(res.body.nextCursor).toBeNull();
  });

  it('tells the wizard the configured workspace domain (WORKSPACE_DOMAIN) for its alias preview, and the preview is the alias the assignment gets', async () => {
    const res = await app.get('/api/am/workspace', { token: am });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ workspaceDomain: WORKSPACE_DOMAIN });
    expect(orgsConfig.read(app.running.config).workspaceDomain).toBe(WORKSPACE_DOMAIN);

    // Before anything is assigned the wizard shows previewWorkspaceAlias(...) with that domain;
    // the assignment then stores the address on the same domain. Spec 2.3.1 rule 5: the preview
    // keeps a hyphen of the first name that the stored alias drops, and nothing else differs.
    const org = await app.post(
      '/api/am/orgs',
      step1({ legalName: 'Preview Co', slug: 'preview-co', corporateDomains: ['preview-co.example.com'], adminEmail: 'admin@preview-co.example.com', website: 'https://preview-co.example.com' }),
      { token: am },
    );
    expect(org.status, JSON.stringify(org.body)).toBe(201);
    // An ASCII first name (a diacritic is dropped by the preview and transliterated by the server, rule 1 and 5).
    const specialist = ((await app.get('/api/am/specialists', { token: am })).body.items as Array<{ id: string; name: string }>).find((x) => /^[A-Za-z-]+$/.test(firstNameOf(x.name)))!;
    const preview = previewWorkspaceAlias(firstNameOf(specialist.name), 'preview-co', res.body.workspaceDomain as string)!;
    expect(preview).toMatch(/\.preview-co@mail\.preview-test\.example\.net$/);
    const assigned = await app.post(`/api/am/orgs/${org.body.id}/specialist`, { specialistId: specialist.id }, { token: am });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(201);
    const [first, rest] = [preview.slice(0, preview.indexOf('.')), preview.slice(preview.indexOf('.'))];
    expect(assigned.body.email_alias).toBe(first.replace(/-/g, '') + rest);
  });

  it('keeps the wizard to AMs and superadmins (expert and client roles 403)', async () => {
    for (const email of ['expert@platform.demo.invalid', 'client@acme.demo.invalid', 'org_admin@acme.demo.invalid']) {
      const token = await app.login(email, PASSWORD);
      expect((await app.get('/api/am/industries', { token })).status).toBe(403);
      expect((await app.get('/api/am/workspace', { token })).status).toBe(403);
      expect((await app.post('/api/am/orgs', step1({ slug: 'nope-nope' }), { token })).status).toBe(403);
    }
    expect((await app.get('/api/am/orgs', { token: superadmin })).status).toBe(200);
  });

  it('creates an org in pending_am_setup with the creator as assigned AM', async () => {
    const me = (await app.get('/api/auth/me', { token: am })).body;
    const res = await app.post('/api/am/orgs', step1({ trialEndDate: future(30), companySize: '11-50' }), { token: am });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      legalName: 'Initech LLC',
      slug: 'initech',
      status: 'pending_am_setup',
      adminEmail: 'bill@initech.example.com',
      corporateDomains: ['initech.example.com', 'initech.example.org'],
      assignedAmId: me.id,
      trialMode: 'default',
      trialStartedAt: null,
    });
    const audit = await app.get(`/api/ops/audit?action=org.created&resourceId=${res.body.id}`, { token: superadmin });
    expect(audit.body.items).toHaveLength(1);
  });

  it('validates every step-1 rule with field errors', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ slug: 'ab' }, 'slug'],
      [{ slug: 'a'.repeat(64) }, 'slug'],
      [{ slug: 'admin' }, 'slug'],
      [{ corporateDomains: [] }, 'corporateDomains'],
      [{ corporateDomains: Array.from({ length: 11 }, (_, i) => `d${i}.example.com`) }, 'corporateDomains'],
      [{ corporateDomains: ['initech.example.com', 'gmail.com'] }, 'corporateDomains.1'],
      [{ corporateDomains: ['not a domain'] }, 'corporateDomains.0'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ industry: 'space-mining' }, 'industry'],
      [{ trialEndDate: new Date().toISOString().slice(0, 10) }, 'trialEndDate'],
      [{ trialEndDate: '2001-01-01' }, 'trialEndDate'],
      [{ adminEmail: 'nope' }, 'adminEmail'],
      [{ legalName: '' }, 'legalName'],
    ];
    for (const [over, field] of cases) {
      const res = await app.post('/api/am/orgs', step1({ slug: 'valid-slug-x', ...over }), { token: am });
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(
        res.body.details.map((d: { field: string }) => d.field),
        JSON.stringify(over),
      ).toContain(field);
    }
    expect((await app.post('/api/am/orgs', step1({ slug: 'abc' }), { token: am })).status).toBe(201);
    expect((await app.post('/api/am/orgs', step1({ slug: 'a'.repeat(63) }), { token: am })).status).toBe(201);
    expect((await app.post('/api/am/orgs', step1({ slug: 'no-trial', trialMode: 'none' }), { token: am })).status).toBe(201);
  });

  it('reports slug availability in real time and refuses a taken slug with 409', async () => {
    const check = async (slug: string, extra = '') => (await app.get(`/api/am/slug-availability?slug=${slug}${extra}`, { token: am })).body;
    expect(await check('initech')).toEqual({ slug: 'initech', valid: true, available: false, reason: 'taken' });
    expect(await check('acme')).toMatchObject({ available: false, reason: 'taken' });
    expect(await check('www')).toEqual({ slug: 'www', valid: false, available: false, reason: 'reserved_word' });
    expect(await check('x')).toEqual({ slug: 'x', valid: false, available: false, reason: 'invalid_format' });
    expect(await check('brand-new-co')).toEqual({ slug: 'brand-new-co', valid: true, available: true, reason: null });
    const dup = await app.post('/api/am/orgs', step1(), { token: am });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('conflict');
  });

  it('takes a slug exactly as sent (spec 2.1): anything outside the pattern is refused, never lowercased', async () => {
    for (const slug of ['Acme-Co', 'ACME', ' acme-co', 'acme-co ']) {
      expect(await (await app.get(`/api/am/slug-availability?slug=${encodeURIComponent(slug)}`, { token: am })).body).toEqual({ slug, valid: false, available: false, reason: 'invalid_format' });
      const created = await app.post('/api/am/orgs', step1({ slug }), { token: am });
      expect(created.status, slug).toBe(400);
      expect(created.body).toMatchObject({ code: 'validation_failed', details: [{ field: 'slug', message: 'Lowercase letters, digits and inner hyphens; 3 to 63 characters' }] });
    }
    expect((await app.get('/api/am/slug-availability?slug=acme-co', { token: am })).body).toMatchObject({ valid: true, available: true });
    const org = (await app.post('/api/am/orgs', step1({ slug: 'case-co' }), { token: am })).body;
    const edited = await app.patch(`/api/am/orgs/${org.id}`, { slug: 'Case-Co-Two' }, { token: am });
    expect(edited.status).toBe(400);
    expect(edited.body.details).toEqual([expect.objectContaining({ field: 'slug' })]);
    expect((await app.get(`/api/am/orgs/${org.id}`, { token: am })).body.slug).toBe('case-co');
    const alias = await app.post(`/api/am/orgs/${org.id}/slug-aliases`, { slug: 'Case-Rebrand' }, { token: superadmin });
    expect(alias.status).toBe(400);
    expect(alias.body.code).toBe('validation_failed');
  });

  it("re-edits step 1, releases a pending org's old slug, and reports its own slug as available to it", async () => {
    const org = (await app.post('/api/am/orgs', step1({ slug: 'rename-me' }), { token: am })).body;
    expect((await app.get(`/api/am/slug-availability?slug=rename-me&orgId=${org.id}`, { token: am })).body.available).toBe(true);
    const edited = await app.patch(`/api/am/orgs/${org.id}`, { slug: 'renamed-co', legalName: 'Renamed Co' }, { token: am });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ slug: 'renamed-co', legalName: 'Renamed Co' });
    expect((await app.get('/api/am/slug-availability?slug=rename-me', { token: am })).body.available).toBe(true);
    expect((await app.patch(`/api/am/orgs/${org.id}`, { slug: 'initech' }, { token: am })).status).toBe(409);
    expect((await app.patch(`/api/am/orgs/${org.id}`, {}, { token: am })).status).toBe(400);
  });

  it('lets only a superadmin change the assigned AM', async () => {
    const org = (await app.post('/api/am/orgs', step1({ slug: 'reassign-am' }), { token: am })).body;
    const me = (await app.get('/api/auth/me', { token: am })).body;
    expect((await app.patch(`/api/am/orgs/${org.id}`, { assignedAmId: me.id }, { token: am })).status).toBe(200);
    const other = (await app.get('/api/auth/me', { token: await app.demoLogin('account_manager', 'acme') })).body;
    expect((await app.patch(`/api/am/orgs/${org.id}`, { assignedAmId: other.id }, { token: am })).status).toBe(403);
    const ok = await app.patch(`/api/am/orgs/${org.id}`, { assignedAmId: other.id }, { token: superadmin });
    expect(ok.status).toBe(200);
    expect(ok.body.assignedAmId).toBe(other.id);
  });

  it('gates finish on Phase 0 (AM profile name) and activates without invite, reserving the slug for good', async () => {
    const nameless = await app.demoLogin('account_manager', 'acme');
    await app.patch('/api/am/profile', { name: '' }, { token: nameless });
    const org = (await app.post('/api/am/orgs', step1({ slug: 'gated-co' }), { token: nameless })).body;
    const status = await app.get(`/api/am/orgs/${org.id}/phase0-status`, { token: nameless });
    expect(status.body).toEqual({ ready: false, missing: ['amProfileName'], specialistAssigned: false, expertMapped: false });
    const refused = await app.post(`/api/am/orgs/${org.id}/finish`, undefined, { token: nameless });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'phase0_gate_failed', details: { missing: ['amProfileName'] } });

    expect((await app.patch('/api/am/profile', { name: 'Dana Account-Manager' }, { token: nameless })).body.name).toBe('Dana Account-Manager');
    expect((await app.get(`/api/am/orgs/${org.id}/phase0-status`, { token: nameless })).body).toMatchObject({ ready: true, missing: [] });
    const done = await app.post(`/api/am/orgs/${org.id}/finish`, undefined, { token: nameless });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'active', trialStartedAt: null });
    expect((await app.get(`/api/dev/mail?to=bill@initech.example.com`)).body).toEqual([]);
    expect((await app.post(`/api/am/orgs/${org.id}/finish`, undefined, { token: nameless })).status).toBe(409);
    expect((await app.patch(`/api/am/orgs/${org.id}`, { slug: 'gated-co-2' }, { token: nameless })).status).toBe(409);
    expect((await app.get('/api/am/slug-availability?slug=gated-co', { token: am })).body.reason).toBe('taken');
  });

  it('lists orgs by status and search, newest first', async () => {
    const res = await app.get('/api/am/orgs?status=pending_am_setup&q=initech&limit=50', { token: am });
    expect(res.status).toBe(200);
    expect(res.body.items.every((o: { status: string }) => o.status === 'pending_am_setup')).toBe(true);
    expect(res.body.items.map((o: { slug: string }) => o.slug)).toContain('initech');
    expect((await app.get('/api/am/orgs/00000000-0000-4000-8000-000000000000', { token: am })).status).toBe(404);
  });
});
