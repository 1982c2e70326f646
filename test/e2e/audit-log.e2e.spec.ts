import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
type Item = {
  id: string;
  action: string;
  userId: string | null;
  resourceId: string | null;
  orgId: string | null;
  meta: Record<string, unknown> | null;
  refs: Record<string, { kind: string; name: string; email?: string; orgId?: string }>;
};

const step1 = (slug: string) => ({
  legalName: `Audit Names ${slug}`,
  slug,
  industry: 'technology',
  corporateDomains: [`${slug}.example.com`],
  adminEmail: `owner@${slug}.example.com`,
  website: `https://${slug}.example.com`,
  timezone: 'Europe/Paris',
});

/** GET /ops/audit read as people read it (spec 6.3): names behind the ids, a user, an org, a date range. */
describe('audit log: names and filters', () => {
  let app: TestApp;
  let superadmin: string;
  let superadminId: string;
  let expertId: string;
  let orgId: string;
  let specialistId: string;
  let startedAt: string;
  const items = async (query: string) => {
    const res = await app.get(`/api/ops/audit?${query}`, { token: superadmin });
    expect(res.status, query).toBe(200);
    return res.body.items as Item[];
  };

  beforeAll(async () => {
    app = await startTestApp();
    startedAt = new Date(Date.now() - 1000).toISOString();
    superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    superadminId = (await app.get('/api/auth/me', { token: superadmin })).body.id;
    const expert = await app.login('expert@platform.demo.invalid', PASSWORD);
    expertId = (await app.get('/api/auth/me', { token: expert })).body.id;
    // Three targets: a user edited, an org created, a catalog Specialist created.
    expect((await app.patch(`/api/admin/users/${expertId}`, { name: 'Audited Expert' }, { token: superadmin })).status).toBe(200);
    const org = await app.post('/api/am/orgs', step1('audit-names'), { token: superadmin });
    expect(org.status).toBe(201);
    orgId = org.body.id;
    const specialist = await app.post('/api/specialists', { name: 'Audit Persona', slug: 'audit-persona' }, { token: superadmin });
    expect(specialist.status).toBe(201);
    specialistId = specialist.body.id;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('names the actor and the target of each row: a user, an org, a Specialist', async () => {
    const [edit] = await items(`action=admin.user.updated&resourceId=${expertId}&limit=1`);
    expect(edit!.refs[superadminId]).toMatchObject({ kind: 'user', email: 'superadmin@platform.demo.invalid' });
    expect(edit!.refs[superadminId]!.name).not.toBe('');
    expect(edit!.refs[expertId]).toEqual({ kind: 'user', name: 'Audited Expert', email: 'expert@platform.demo.invalid' });
    // The payload's own ids (actorId, targetUserId) are named by the same refs.
    expect(edit!.meta).toMatchObject({ actorId: superadminId, targetUserId: expertId });

    const [created] = await items(`action=org.created&orgId=${orgId}`);
    expect(created!.refs[orgId]).toEqual({ kind: 'org', name: 'Audit Names audit-names' });
    const [persona] = await items(`action=specialist.created&resourceId=${specialistId}`);
    expect(persona!.refs[specialistId]).toEqual({ kind: 'specialist', name: 'Audit Persona' });
  });

  it('the user activity carries the same names', async () => {
    const res = await app.get(`/api/admin/users/${superadminId}/activity?limit=50`, { token: superadmin });
    expect(res.status).toBe(200);
    const edit = (res.body.items as Item[]).find((i) => i.action === 'admin.user.updated' && i.resourceId === expertId);
    expect(edit?.refs[expertId]?.name).toBe('Audited Expert');
  });

  it('userId picks the rows a user took part in, as the actor or as the target', async () => {
    const rows = await items(`userId=${expertId}&limit=200`);
    // The edit against the Expert (target) and the Expert's own sign-in (actor).
    expect(rows.some((r) => r.action === 'admin.user.updated' && r.resourceId === expertId && r.userId === superadminId)).toBe(true);
    expect(rows.some((r) => r.action === 'auth.login' && r.userId === expertId)).toBe(true);
    expect(rows.every((r) => r.userId === expertId || r.resourceId === expertId || (r as { impersonatorId?: string }).impersonatorId === expertId)).toBe(true);
    // actorId still means the actor only.
    expect((await items(`actorId=${expertId}&limit=200`)).every((r) => r.userId === expertId)).toBe(true);
  });

  it('keeps to a date range: days (UTC) or instants', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect((await items(`action=org.created&orgId=${orgId}&from=${startedAt}`)).map((r) => r.orgId)).toEqual([orgId]);
    expect(await items(`action=org.created&orgId=${orgId}&to=${encodeURIComponent(startedAt)}`)).toEqual([]);
    // A bare `to` day includes that whole day; a range ending yesterday excludes today.
    const inToday = await items(`action=org.created&orgId=${orgId}&from=${today}&to=${today}`);
    const inTomorrow = await items(`action=org.created&orgId=${orgId}&from=${tomorrow}`);
    const untilYesterday = await items(`action=org.created&orgId=${orgId}&to=${yesterday}`);
    // Around midnight UTC the row may fall on either side of "today"; the three answers agree with its timestamp.
    const day = (await items(`action=org.created&orgId=${orgId}`))[0]!;
    const createdDay = (day as unknown as { createdAt: string }).createdAt.slice(0, 10);
    expect(inToday.length).toBe(createdDay === today ? 1 : 0);
    expect(inTomorrow).toEqual([]);
    expect(untilYesterday.length).toBe(createdDay <= yesterday ? 1 : 0);
  });

  it('refuses a reversed range and a malformed day with the field named', async () => {
    const reversed = await app.get('/api/ops/audit?from=2026-05-02&to=2026-05-01', { token: superadmin });
    expect(reversed.status).toBe(400);
    expect(reversed.body).toMatchObject({ code: 'validation_failed' });
    expect(JSON.stringify(reversed.body.details)).toContain('to');
    const bad = await app.get('/api/ops/audit?from=yesterday', { token: superadmin });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.details)).toContain('from');
    expect((await app.get(`/api/ops/audit?userId=not-a-uuid`, { token: superadmin })).status).toBe(400);
  });

  it('stays SuperAdmin only', async () => {
    const am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    expect((await app.get(`/api/ops/audit?userId=${expertId}`, { token: am })).status).toBe(403);
  });
});
