import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
let seq = 0;

describe('Specialist assignments (spec 2.3, 4.2)', () => {
  let app: TestApp;
  let am: string;
  let superadmin: string;
  const persona = async (name: string) =>
    (await app.post('/api/specialists', { name, slug: `p-${++seq}-${Date.now().toString(36)}`, persona: 'x', monthly_rate_config: { base_rate: 1000, currency: 'USD' } }, { token: superadmin }))
      .body as { id: string; name: string };
  const newOrg = async (slug: string) =>
    (
      await app.post(
        '/api/am/orgs',
        { legalName: slug, slug, industry: 'retail', corporateDomains: [`${slug}.example.com`], adminEmail: `admin@${slug}.example.com`, website: 'https://x.example.com', timezone: 'UTC' },
        { token: am },
      )
    ).body as { id: string; slug: string };

  beforeAll(async () => {
    app = await startTestApp();
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('makes the first assignment primary, generates the alias and resolves the rate', async () => {
    const org = await newOrg('umbrella');
    const jose = await persona('José Ramírez');
    const res = await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: jose.id }, { token: am });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      orgId: org.id,
      specialistId: jose.id,
      isPrimary: true,
      monthlyRate: null,
      email_alias: 'jose.umbrella@workspace.example.com',
      rate: { amount: 1000, currency: 'USD', source: 'specialist' },
      mailboxUserId: null,
      mailboxStatus: 'none',
      specialist: { name: 'José Ramírez' },
    });
    expect(res.body.assignmentId).toBe(res.body.id);
    const annie = await persona('Anne-Marie Dubois');
    const second = await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: annie.id, monthlyRate: 750, overrideReason: 'launch discount' }, { token: am });
    expect(second.body).toMatchObject({ isPrimary: false, email_alias: 'annemarie.umbrella@workspace.example.com', rate: { amount: 750, source: 'override' } });
    expect((await app.get(`/api/am/orgs/${org.id}/phase0-status`, { token: am })).body.specialistAssigned).toBe(true);
    const detail = await app.get(`/api/am/orgs/${org.id}/specialist-assignments/${second.body.id}`, { token: am });
    expect(detail.body.overrideReason).toBe('launch discount');
    // Joined to the catalog Specialist's fields (spec 2.2, 4.2): the routing address and the catalog rate beside the override.
    expect(detail.body.specialist).toEqual({
      id: annie.id,
      name: 'Anne-Marie Dubois',
      slug: expect.any(String),
      avatarUrl: null,
      routingEmail: null,
      skillTags: [],
      monthly_rate_config: { base_rate: 1000, currency: 'USD' },
    });
    expect((await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: annie.id }, { token: am })).status).toBe(409);
  });

  it('refuses an all-symbol first name with 400 and numbers alias collisions', async () => {
    const org = await newOrg('symbols');
    const weird = await persona('!!! Bot');
    const res = await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: weird.id }, { token: am });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('bad_request');
    const a = await persona('Maya One');
    const b = await persona('Maya Two');
    expect((await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: a.id }, { token: am })).body.email_alias).toBe('maya.symbols@workspace.example.com');
    expect((await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: b.id }, { token: am })).body.email_alias).toBe('maya2.symbols@workspace.example.com');
  });

  it('checks override rates: 0 and 100000 rejected, 1 and 99999 accepted, a reason required', async () => {
    const org = await newOrg('rates-co');
    const p = await persona('Rita Rates');
    const post = (body: Record<string, unknown>) => app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: p.id, ...body }, { token: am });
    for (const monthlyRate of [0, 100000]) {
      const r = await post({ monthlyRate, overrideReason: 'x' });
      expect(r.status, String(monthlyRate)).toBe(400);
      expect(r.body.details[0].field).toBe('monthlyRate');
    }
    const noReason = await post({ monthlyRate: 500 });
    expect(noReason.status).toBe(400);
    expect(noReason.body.details[0].field).toBe('overrideReason');
    const ok = await post({ monthlyRate: 1, overrideReason: 'floor' });
    expect(ok.status).toBe(201);
    const patched = await app.patch(`/api/am/orgs/${org.id}/specialist-assignments/${ok.body.id}`, { monthlyRate: 99999, overrideReason: 'ceiling' }, { token: am });
    expect(patched.status).toBe(200);
    expect(patched.body.rate).toEqual({ amount: 99999, currency: 'USD', source: 'override' });
    const back = await app.patch(`/api/am/orgs/${org.id}/specialist-assignments/${ok.body.id}`, { monthlyRate: null }, { token: am });
    expect(back.body).toMatchObject({ monthlyRate: null, overrideReason: null, rate: { source: 'specialist' } });
    const windowed = await app.patch(`/api/am/orgs/${org.id}/specialist-assignments/${ok.body.id}`, { monthlyRate: 300, overrideReason: 'next year', rateEffectiveFrom: '2999-01-01' }, { token: am });
    expect(windowed.body.rate.source).toBe('specialist');
    expect(windowed.body.monthly_rate_config).toMatchObject({ rate_effective_from: '2999-01-01', rate_effective_until: null });
    const audit = await app.get(`/api/ops/audit?action=osa.rate_updated&resourceId=${ok.body.id}`, { token: superadmin });
    expect(audit.body.items).toHaveLength(3);
  });

  it('keeps exactly one primary under concurrent first assignments, and re-elects on unassign', async () => {
    const org = await newOrg('race-co');
    const ps = await Promise.all(['Ada', 'Bea', 'Cyd', 'Dee'].map((n) => persona(`${n} Racer`)));
    const results = await Promise.all(ps.map((p) => app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: p.id }, { token: am })));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    let list = (await app.get(`/api/am/orgs/${org.id}/specialist-assignments`, { token: am })).body.items as Array<{ isPrimary: boolean; specialistId: string }>;
    expect(list.filter((a) => a.isPrimary)).toHaveLength(1);
    const primary = list.find((a) => a.isPrimary)!;
    expect((await app.request('DELETE', `/api/am/orgs/${org.id}/specialist/${primary.specialistId}`, { token: am })).status).toBe(204);
    list = (await app.get(`/api/am/orgs/${org.id}/specialist-assignments`, { token: am })).body.items;
    expect(list).toHaveLength(3);
    expect(list.filter((a) => a.isPrimary)).toHaveLength(1);
    expect(list[0]!.isPrimary).toBe(true);
    expect((await app.request('DELETE', `/api/am/orgs/${org.id}/specialist/${primary.specialistId}`, { token: am })).status).toBe(404);
  });

  it('gives the same Specialist distinct addresses on two orgs', async () => {
    const p = await persona('Omar Twin');
    const a = await newOrg('twin-one');
    const b = await newOrg('twin-two');
    const ra = await app.post(`/api/am/orgs/${a.id}/specialist`, { specialistId: p.id }, { token: am });
    const rb = await app.post(`/api/am/orgs/${b.id}/specialist`, { specialistId: p.id }, { token: am });
    expect(ra.body.email_alias).toBe('omar.twin-one@workspace.example.com');
    expect(rb.body.email_alias).toBe('omar.twin-two@workspace.example.com');
  });

  it("only lets AMs and superadmins act; another org's assignment answers 404", async () => {
    const org = await newOrg('guarded-co');
    const p = await persona('Gus Guarded');
    const created = (await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: p.id }, { token: am })).body;
    for (const email of ['expert@platform.demo.invalid', 'client@acme.demo.invalid']) {
      const token = await app.login(email, PASSWORD);
      expect((await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: p.id }, { token })).status).toBe(403);
      expect((await app.get(`/api/am/orgs/${org.id}/specialist-assignments/${created.id}`, { token })).status).toBe(403);
    }
    const other = await newOrg('other-co');
    expect((await app.get(`/api/am/orgs/${other.id}/specialist-assignments/${created.id}`, { token: am })).status).toBe(404);
    expect((await app.patch(`/api/am/orgs/${other.id}/specialist-assignments/${created.id}`, { monthlyRate: null }, { token: am })).status).toBe(404);
  });
});
