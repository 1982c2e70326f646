import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersService } from '../../src/modules/users/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { demoCast, type DemoCast } from '../support/tenants.js';

type OsaRow = { id: string; specialistId: string; specialist: { name: string }; rate: { amount: number; currency: string } | null };
type ListedOrg = { id: string; slug: string; assignedAmId: string | null; assignedAmName: string | null };

/**
 * The data the staff's clients list and the client's billing page read (issue 18): the clients
 * list names each org's account manager and filters by it; the billing settings name the
 * Specialists the org pays for with their monthly rate, and no provider id.
 */
describe('data of the clients list and the client billing page', () => {
  let app: TestApp;
  let c: DemoCast;
  let amId: string;

  beforeAll(async () => {
    app = await startTestApp();
    c = await demoCast(app);
    amId = (await app.get('/api/auth/me', { token: c.am })).body.id;
  });
  afterAll(async () => {
    await app?.close();
  });

  describe('GET /am/orgs', () => {
    it("gives each org its account manager's name", async () => {
      const res = await app.get('/api/am/orgs?limit=100', { token: c.am });
      expect(res.status).toBe(200);
      const am = await app.running.app.get(UsersService).findById(amId);
      const acme = (res.body.items as ListedOrg[]).find((o) => o.slug === 'acme')!;
      expect(acme).toMatchObject({ assignedAmId: amId, assignedAmName: am!.name });
      expect(am!.name).not.toBe('');
    });

    it('filters by the assigned account manager', async () => {
      // An org assigned to nobody: the superadmin creates it, then hands it to no one.
      const orphan = await app.post(
        '/api/am/orgs',
        {
          legalName: 'Orphan Co',
          slug: 'orphan-co',
          industry: 'technology',
          corporateDomains: ['orphan.example.com'],
          adminEmail: 'a@orphan.example.com',
          website: 'https://orphan.example.com',
          timezone: 'UTC',
        },
        { token: c.superadmin },
      );
      expect(orphan.status).toBe(201);
      const mine = (await app.get(`/api/am/orgs?limit=100&assignedAmId=${amId}`, { token: c.am })).body.items as ListedOrg[];
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.every((o) => o.assignedAmId === amId)).toBe(true);
      expect(mine.map((o) => o.id)).toContain(c.acmeId);
      expect(mine.map((o) => o.id)).not.toContain(orphan.body.id);

      const all = (await app.get('/api/am/orgs?limit=100', { token: c.am })).body.items as ListedOrg[];
      expect(all.map((o) => o.id)).toContain(orphan.body.id);
    });

    it('refuses an assignedAmId that is not an id, and clients', async () => {
      const bad = await app.get('/api/am/orgs?assignedAmId=me', { token: c.am });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ statusCode: 400, code: 'validation_failed' });
      expect((await app.get(`/api/am/orgs?assignedAmId=${amId}`, { token: c.owner })).status).toBe(403);
    });
  });

  describe('GET /orgs/:orgId/billing', () => {
    it('names the Specialists the org pays for, with their monthly rate and currency, and the current month', async () => {
      const osas = (await app.get(`/api/am/orgs/${c.acmeId}/specialist-assignments`, { token: c.am })).body.items as OsaRow[];
      expect(osas.length).toBeGreaterThan(0);
      const res = await app.get(`/api/orgs/${c.acmeId}/billing`, { token: c.owner });
      expect(res.status).toBe(200);
      const byAssignment = new Map((res.body.specialists as Array<{ assignmentId: string }>).map((s) => [s.assignmentId, s]));
      expect(byAssignment.size).toBe(osas.length);
      for (const osa of osas) {
        expect(byAssignment.get(osa.id)).toMatchObject({
          specialistId: osa.specialistId,
          name: osa.specialist.name,
          monthlyRateCents: osa.rate ? Math.round(osa.rate.amount * 100) : null,
          currency: osa.rate?.currency ?? null,
        });
      }
      const period = new Date().toISOString().slice(0, 7);
      expect(res.body.currentPeriod).toMatchObject({ period, from: `${period}-01` });
      expect(res.body.currentPeriod.to.startsWith(period)).toBe(true);
    });

    it('follows a rate change and an unassignment', async () => {
      const [osa] = (await app.get(`/api/am/orgs/${c.acmeId}/specialist-assignments`, { token: c.am })).body.items as OsaRow[];
      const changed = await app.patch(`/api/am/orgs/${c.acmeId}/specialist-assignments/${osa!.id}`, { monthlyRate: 1234, overrideReason: 'renegotiated' }, { token: c.am });
      expect(changed.status).toBe(200);
      const after = (await app.get(`/api/orgs/${c.acmeId}/billing`, { token: c.owner })).body.specialists as Array<{ assignmentId: string; monthlyRateCents: number }>;
      expect(after.find((s) => s.assignmentId === osa!.id)?.monthlyRateCents).toBe(123_400);

      const hooliOsa = await app.post(`/api/am/orgs/${c.hooliId}/specialist`, { specialistId: osa!.specialistId }, { token: c.am });
      expect(hooliOsa.status).toBe(201);
      expect(((await app.get(`/api/orgs/${c.hooliId}/billing`, { token: c.hooliOwner })).body.specialists as unknown[]).length).toBe(1);
      expect((await app.request('DELETE', `/api/am/orgs/${c.hooliId}/specialist/${osa!.specialistId}`, { token: c.am })).status).toBe(204);
      expect((await app.get(`/api/orgs/${c.hooliId}/billing`, { token: c.hooliOwner })).body.specialists).toEqual([]);
    });

    it('carries no provider id', async () => {
      const res = await app.get(`/api/orgs/${c.acmeId}/billing`, { token: c.owner });
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('providerCustomerId');
      expect(JSON.stringify(res.body)).not.toMatch(/cus_|sub_|manual_cus/);
    });

    it('stays closed to members without a billing role and to other orgs', async () => {
      expect((await app.get(`/api/orgs/${c.acmeId}/billing`, { token: c.member })).status).toBe(403);
      expect((await app.get(`/api/orgs/${c.acmeId}/billing`, { token: c.hooliOwner })).status).toBe(404);
    });
  });
});
