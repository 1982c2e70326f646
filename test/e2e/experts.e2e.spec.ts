import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgsService } from '../../src/modules/orgs/index.js';
import { RealtimeService } from '../../src/platform/realtime/realtime.service.js';
import { connectSocket, type TestSocket } from '../support/sockets.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';

describe('Expert coverage (spec 2.4)', () => {
  let app: TestApp;
  let am: string;
  let orgId: string;
  let expertId: string;
  let expert2Id: string;
  const specialists: string[] = [];
  const sockets: TestSocket[] = [];
  beforeAll(async () => {
    app = await startTestApp();
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    const org = await app.post(
      '/api/am/orgs',
      {
        legalName: 'Hooli',
        slug: 'hooli',
        industry: 'technology',
        corporateDomains: ['hooli.example.com'],
        adminEmail: 'gavin@hooli.example.com',
        website: 'https://hooli.example.com',
        timezone: 'America/Los_Angeles',
      },
      { token: am },
    );
    orgId = org.body.id;
    const pool = (await app.get('/api/am/specialists?limit=200', { token: am })).body.items as Array<{ id: string; slug: string }>;
    for (const slug of ['maya-chen', 'omar-haddad']) {
      const id = pool.find((s) => s.slug === slug)!.id;
      specialists.push(id);
      await app.post(`/api/am/orgs/${orgId}/specialist`, { specialistId: id }, { token: am });
    }
    const experts = (await app.get('/api/am/experts/list', { token: am })).body.items as Array<{ id: string; email: string }>;
    expertId = experts.find((e) => e.email === 'expert@platform.demo.invalid')!.id;
    expert2Id = experts.find((e) => e.email === 'expert2@platform.demo.invalid')!.id;
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await app?.close();
  });

  it('lists active Experts', async () => {
    const res = await app.get('/api/am/experts/list', { token: am });
    expect(res.status).toBe(200);
    expect(res.body.items.map((e: { email: string }) => e.email)).toEqual(expect.arrayContaining(['expert@platform.demo.invalid', 'expert2@platform.demo.invalid']));
  });

  it('grants org-wide and specialist-scoped coverage and summarizes it per Specialist', async () => {
    expect((await app.get(`/api/am/orgs/${orgId}/phase0-status`, { token: am })).body.expertMapped).toBe(false);
    const wide = await app.post(`/api/am/orgs/${orgId}/expert-grants`, { expertId, scope: 'org' }, { token: am });
    expect(wide.status).toBe(201);
    expect(wide.body).toMatchObject({ orgId, expertId, scope: 'org', specialistIds: [], expert: { email: 'expert@platform.demo.invalid' } });
    const narrow = await app.post(`/api/am/orgs/${orgId}/expert-grants`, { expertId: expert2Id, scope: 'specialist', specialistIds: [specialists[0]] }, { token: am });
    expect(narrow.status).toBe(201);
    const coverage = (await app.get(`/api/am/orgs/${orgId}/specialist-coverage`, { token: am })).body.items as Array<{ specialistId: string; experts: Array<{ id: string; scope: string }> }>;
    const bySpecialist = Object.fromEntries(coverage.map((c) => [c.specialistId, c.experts.map((e) => e.id).sort()]));
    expect(bySpecialist[specialists[0]!]).toEqual([expertId, expert2Id].sort());
    expect(bySpecialist[specialists[1]!]).toEqual([expertId]);
    expect((await app.get(`/api/am/orgs/${orgId}/phase0-status`, { token: am })).body.expertMapped).toBe(true);
    expect((await app.get(`/api/am/orgs/${orgId}/expert-grants`, { token: am })).body.items).toHaveLength(2);
  });

  it('covers a Specialist assigned later through the org-wide grant', async () => {
    const pool = (await app.get('/api/am/specialists?limit=200', { token: am })).body.items as Array<{ id: string; slug: string }>;
    const later = pool.find((s) => s.slug === 'priya-nair')!.id;
    await app.post(`/api/am/orgs/${orgId}/specialist`, { specialistId: later }, { token: am });
    const coverage = (await app.get(`/api/am/orgs/${orgId}/specialist-coverage`, { token: am })).body.items as Array<{ specialistId: string; experts: Array<{ id: string }> }>;
    expect(coverage.find((c) => c.specialistId === later)!.experts.map((e) => e.id)).toEqual([expertId]);
  });

  it('refuses bad grants: duplicate org-wide, unknown Expert, unassigned Specialist, scope rules', async () => {
    expect((await app.post(`/api/am/orgs/${orgId}/expert-grants`, { expertId, scope: 'org' }, { token: am })).status).toBe(409);
    // The same Specialists again (in any order, repeated or not) is the same grant: 409; another set is a grant of its own.
    const same = await app.post(`/api/am/orgs/${orgId}/expert-grants`, { expertId: expert2Id, scope: 'specialist', specialistIds: [specialists[0], specialists[0]] }, { token: am });
    expect(same.status).toBe(409);
    expect(same.body.code).toBe('conflict');
    expect((await app.get(`/api/am/orgs/${orgId}/expert-grants`, { token: am })).body.items).toHaveLength(2);
    const client = (await app.get('/api/auth/me', { token: await app.login('client@acme.demo.invalid', PASSWORD) })).body.id;
    expect((await app.post(`/api/am/orgs/${orgId}/expert-grants`, { expertId: client, scope: 'org' }, { token: am })).status).toBe(404);
    expect((await app.post(`/api/am/orgs/${orgId}/expert-grants`, { expertId: expert2Id, scope: 'specialist' }, { token: am })).status).toBe(400);
    expect((await app.post(`/api/am/orgs/${orgId}/expert-grants`, { expertId: expert2Id, scope: 'specialist', specialistIds: ['00000000-0000-4000-8000-000000000009'] }, { token: am })).status).toBe(
      400,
    );
    expect((await app.post(`/api/am/orgs/${orgId}/expert-grants`, { expertId: expert2Id, scope: 'everything' }, { token: am })).status).toBe(400);
  });

  it('removes a grant (and 404 for another org), audited', async () => {
    const grants = (await app.get(`/api/am/orgs/${orgId}/expert-grants`, { token: am })).body.items as Array<{ id: string; scope: string }>;
    const narrow = grants.find((g) => g.scope === 'specialist')!;
    const acme = (await app.running.app.get(OrgsService).findBySlug('acme'))!;
    expect((await app.request('DELETE', `/api/am/orgs/${acme.id}/expert-grants/${narrow.id}`, { token: am })).status).toBe(404);
    expect((await app.request('DELETE', `/api/am/orgs/${orgId}/expert-grants/${narrow.id}`, { token: am })).status).toBe(204);
    const superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    const audit = await app.get(`/api/ops/audit?action=expert_grant.removed&resourceId=${narrow.id}`, { token: superadmin });
    expect(audit.body.items).toHaveLength(1);
  });

  it('keeps grants to AMs and superadmins', async () => {
    for (const email of ['expert@platform.demo.invalid', 'org_admin@acme.demo.invalid']) {
      const token = await app.login(email, PASSWORD);
      expect((await app.post(`/api/am/orgs/${orgId}/expert-grants`, { expertId, scope: 'org' }, { token })).status).toBe(403);
      expect((await app.get('/api/am/experts/list', { token })).status).toBe(403);
    }
  });

  it("puts an Expert's and an AM's sockets in the org rooms of their grants and assigned orgs", async () => {
    const realtime = app.running.app.get(RealtimeService);
    const expertSocket = await connectSocket(app.url, await app.login('expert@platform.demo.invalid', PASSWORD));
    const amSocket = await connectSocket(app.url, am);
    sockets.push(expertSocket, amSocket);
    expect(realtime.localRoomsOf(expertSocket.id!)).toContain(`org:${orgId}`);
    expect(realtime.localRoomsOf(amSocket.id!)).toContain(`org:${orgId}`);
  });

  it('demo-login gives the demo Expert an org-wide grant and makes the demo AM the assigned AM', async () => {
    const acme = (await app.running.app.get(OrgsService).findBySlug('acme'))!;
    const expertToken = await app.demoLogin('expert', 'acme');
    const demoExpert = (await app.get('/api/auth/me', { token: expertToken })).body;
    const grants = (await app.get(`/api/am/orgs/${acme.id}/expert-grants`, { token: am })).body.items as Array<{ expertId: string; scope: string }>;
    expect(grants.filter((g) => g.expertId === demoExpert.id)).toEqual([expect.objectContaining({ scope: 'org' })]);
    await app.demoLogin('expert', 'acme');
    expect(((await app.get(`/api/am/orgs/${acme.id}/expert-grants`, { token: am })).body.items as Array<{ expertId: string }>).filter((g) => g.expertId === demoExpert.id)).toHaveLength(1);
    const amToken = await app.demoLogin('account_manager', 'acme');
    const demoAm = (await app.get('/api/auth/me', { token: amToken })).body;
    expect((await app.get(`/api/am/orgs/${acme.id}`, { token: am })).body.assignedAmId).toBe(demoAm.id);
  });
});
