import { randomUUID } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OsaDto } from '../../src/contracts/assignments.js';
import { draftsOf, planSave, runSpecialistStep, type Drafts, type SpecialistStepCalls } from '../../src/contracts/specialist-step.js';
import { orgSpecialistAssignments as osa, osaRateHistory } from '../../src/modules/specialists/assignments.tables.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
let seq = 0;

interface Refusal extends Error {
  status: number;
  body: { code: string };
}

/**
 * The Specialist step of the AM wizard (spec 4.2), saved the way its page saves it: the plan made
 * from the AM's drafts and the org's assignments, then run request by request against the server.
 */
describe('saving the Specialist step (spec 4.2): changed only, unassign after phase 1', () => {
  let app: TestApp;
  let am: string;
  let superadmin: string;

  const persona = async (first: string) =>
    (
      await app.post(
        '/api/specialists',
        { name: `${first} Step`, slug: `step-${++seq}-${Date.now().toString(36)}`, persona: 'x', monthly_rate_config: { base_rate: 1000, currency: 'USD' } },
        { token: superadmin },
      )
    ).body as { id: string; name: string };

  const newOrg = async () => {
    const slug = `step-org-${++seq}`;
    const org = await app.post(
      '/api/am/orgs',
      { legalName: slug, slug, industry: 'retail', corporateDomains: [`${slug}.example.com`], adminEmail: `admin@${slug}.example.com`, website: 'https://x.example.com', timezone: 'UTC' },
      { token: am },
    );
    expect(org.status).toBe(201);
    return org.body.id as string;
  };

  const assign = async (orgId: string, specialistId: string, rate?: { monthlyRate: number; overrideReason: string }) => {
    const res = await app.post(`/api/am/orgs/${orgId}/specialist`, { specialistId, ...rate }, { token: am });
    expect(res.status).toBe(201);
    return res.body as OsaDto;
  };

  const assignments = async (orgId: string) => (await app.get(`/api/am/orgs/${orgId}/specialist-assignments`, { token: am })).body.items as OsaDto[];

  /** The step's three requests against the server, each recorded; a refusal rejects with its status. */
  const callsOf = (orgId: string, sent: string[]): SpecialistStepCalls => {
    const call = async (method: string, path: string, body?: unknown) => {
      sent.push(`${method} ${path}`);
      const res = await app.request(method, `/api/am/orgs/${orgId}${path}`, { token: am, body });
      if (res.status >= 300) throw Object.assign(new Error(res.body.message), { status: res.status, body: res.body });
      return res.body;
    };
    return {
      assign: (body) => call('POST', '/specialist', body),
      update: (assignmentId, body) => call('PATCH', `/specialist-assignments/${assignmentId}`, body),
      unassign: (specialistId) => call('DELETE', `/specialist/${specialistId}`),
    };
  };

  /** Opens the step on the org's assignments, lets `edit` change the drafts (a new pick goes last), saves. */
  const saveStep = async (orgId: string, edit: (drafts: Drafts, pick: (specialistId: string, rate?: number, reason?: string) => void) => unknown) => {
    const current = await assignments(orgId);
    const { drafts, order } = draftsOf(current);
    await edit(drafts, (specialistId, rate, reason) => {
      drafts[specialistId] = { selected: true, rate: rate ?? '', reason: reason ?? '' };
      order.push(specialistId);
    });
    const plan = planSave(drafts, order, current);
    const sent: string[] = [];
    const outcome = await runSpecialistStep(plan, callsOf(orgId, sent));
    return { plan, outcome, sent };
  };

  /** Every assignment row of the org (unassigned ones too) with its rate versions, as stored. */
  const stored = async (orgId: string) => {
    const db = app.running.app.get(DbService).root;
    const rows = await db.select().from(osa).where(eq(osa.orgId, orgId)).orderBy(asc(osa.createdAt));
    const versions = await db.select().from(osaRateHistory).where(eq(osaRateHistory.orgId, orgId));
    return new Map(
      rows.map((r) => [
        r.specialistId,
        { updatedAt: r.updatedAt.toISOString(), unassignedAt: r.unassignedAt, monthlyRate: r.monthlyRate, isPrimary: r.isPrimary, versions: versions.filter((v) => v.assignmentId === r.id).length },
      ]),
    );
  };

  /** The org's audit rows, oldest first. */
  const audit = async (orgId: string) => {
    const res = await app.get(`/api/ops/audit?orgId=${orgId}&limit=200`, { token: superadmin });
    expect(res.status).toBe(200);
    return (res.body.items as Array<{ id: string; action: string; resourceId: string; meta: Record<string, unknown> }>).reverse();
  };

  beforeAll(async () => {
    app = await startTestApp();
    [am, superadmin] = await Promise.all(['account_manager', 'superadmin'].map((role) => app.login(`${role}@platform.demo.invalid`, PASSWORD)));
  });
  afterAll(() => app?.close());

  it('updates only the assignments whose values changed; an unchanged one gets no request, no write, no rate version, no audit row', async () => {
    const orgId = await newOrg();
    const [ana, ben, cleo] = await Promise.all([persona('Ana'), persona('Ben'), persona('Cleo')]);
    const a = await assign(orgId, ana.id, { monthlyRate: 700, overrideReason: 'launch' });
    const b = await assign(orgId, ben.id);
    const c = await assign(orgId, cleo.id, { monthlyRate: 500, overrideReason: 'pilot' });
    const before = await stored(orgId);
    const auditBefore = await audit(orgId);
    await new Promise((r) => setTimeout(r, 20));

    const { plan, outcome, sent } = await saveStep(orgId, (drafts) => {
      drafts[ana.id] = { ...drafts[ana.id]!, rate: 800 };
      drafts[cleo.id] = { ...drafts[cleo.id]!, reason: 'pilot extended' };
    });
    expect(outcome).toEqual({ failures: [], unassignSkipped: false });
    expect(plan.assign).toEqual([]);
    expect(plan.unassign).toEqual([]);
    expect(sent).toEqual([`PATCH /specialist-assignments/${a.id}`, `PATCH /specialist-assignments/${c.id}`]);

    const after = await stored(orgId);
    expect(after.get(ana.id)).toMatchObject({ monthlyRate: 800, versions: before.get(ana.id)!.versions + 1 });
    expect(after.get(ana.id)!.updatedAt).not.toBe(before.get(ana.id)!.updatedAt);
    expect(after.get(cleo.id)).toMatchObject({ monthlyRate: 500, versions: before.get(cleo.id)!.versions + 1 });
    // Ben's assignment was left alone.
    expect(after.get(ben.id)).toEqual(before.get(ben.id));
    const added = (await audit(orgId)).slice(auditBefore.length);
    expect(added.map((r) => [r.action, r.resourceId])).toEqual([
      ['osa.rate_updated', a.id],
      ['osa.rate_updated', c.id],
    ]);
    expect(added.some((r) => r.resourceId === b.id)).toBe(false);
    expect((await assignments(orgId)).find((x) => x.id === c.id)).toMatchObject({ overrideReason: 'pilot extended', monthlyRate: 500 });

    // Saving the step again as it stands sends nothing and changes nothing.
    const again = await saveStep(orgId, () => undefined);
    expect(again.sent).toEqual([]);
    expect(await stored(orgId)).toEqual(after);
    expect(await audit(orgId)).toHaveLength(auditBefore.length + 2);
  });

  it('a PATCH that repeats the values an assignment has writes nothing: no rate version, no audit row, updatedAt unchanged', async () => {
    const orgId = await newOrg();
    const [dora, eli] = await Promise.all([persona('Dora'), persona('Eli')]);
    const d = await assign(orgId, dora.id, { monthlyRate: 650, overrideReason: 'agreed' });
    const e = await assign(orgId, eli.id);
    const before = await stored(orgId);
    const auditBefore = await audit(orgId);
    await new Promise((r) => setTimeout(r, 20));

    const same = await app.patch(`/api/am/orgs/${orgId}/specialist-assignments/${d.id}`, { monthlyRate: 650, overrideReason: 'agreed' }, { token: am });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ id: d.id, monthlyRate: 650, overrideReason: 'agreed', rate: { amount: 650, source: 'override' } });
    const catalog = await app.patch(`/api/am/orgs/${orgId}/specialist-assignments/${e.id}`, { monthlyRate: null }, { token: am });
    expect(catalog.status).toBe(200);
    expect(catalog.body).toMatchObject({ id: e.id, monthlyRate: null, rate: { amount: 1000, source: 'specialist' } });
    expect(await stored(orgId)).toEqual(before);
    expect(await audit(orgId)).toEqual(auditBefore);

    // A real change still writes, once.
    const changed = await app.patch(`/api/am/orgs/${orgId}/specialist-assignments/${d.id}`, { monthlyRate: 650, overrideReason: 'renegotiated' }, { token: am });
    expect(changed.body.overrideReason).toBe('renegotiated');
    expect((await stored(orgId)).get(dora.id)!.versions).toBe(before.get(dora.id)!.versions + 1);
    expect((await audit(orgId)).slice(auditBefore.length).map((r) => r.action)).toEqual(['osa.rate_updated']);
  });

  it('unassigns the deselected Specialists only after every creation and update has succeeded', async () => {
    const orgId = await newOrg();
    const [finn, gia, hal] = await Promise.all([persona('Finn'), persona('Gia'), persona('Hal')]);
    const f = await assign(orgId, finn.id);
    const g = await assign(orgId, gia.id);
    expect(f.isPrimary).toBe(true);
    const auditBefore = await audit(orgId);

    const { outcome, sent } = await saveStep(orgId, (drafts, pick) => {
      drafts[finn.id] = { ...drafts[finn.id]!, selected: false };
      drafts[gia.id] = { ...drafts[gia.id]!, rate: 900, reason: 'volume' };
      pick(hal.id);
    });
    expect(outcome).toEqual({ failures: [], unassignSkipped: false });
    expect(sent).toEqual(['POST /specialist', `PATCH /specialist-assignments/${g.id}`, `DELETE /specialist/${finn.id}`]);
    const added = (await audit(orgId)).slice(auditBefore.length);
    expect(added.map((r) => r.action)).toEqual(['osa.assigned', 'osa.rate_updated', 'osa.unassigned']);
    const now = await assignments(orgId);
    expect(now.map((x) => x.specialistId).sort()).toEqual([gia.id, hal.id].sort());
    // The primary went to the oldest remaining assignment; the new one was made while Finn was still primary.
    expect(now.find((x) => x.specialistId === gia.id)).toMatchObject({ isPrimary: true, monthlyRate: 900 });
    expect(now.find((x) => x.specialistId === hal.id)?.isPrimary).toBe(false);
  });

  const failures: Array<{
    name: string;
    status: number;
    action: 'assign' | 'update';
    edit: (ids: { kept: string; dropped: string; fresh: string }, drafts: Drafts, pick: (id: string, rate?: number, reason?: string) => void) => Promise<void> | void;
  }> = [
    {
      name: 'an unknown Specialist (404)',
      status: 404,
      action: 'assign',
      edit: (_ids, _drafts, pick) => pick(randomUUID()),
    },
    {
      name: 'a rate above 99999 (400)',
      status: 400,
      action: 'update',
      edit: ({ kept }, drafts) => {
        drafts[kept] = { selected: true, rate: 100000, reason: 'too much' };
      },
    },
    {
      name: 'a rate override without a reason (400)',
      status: 400,
      action: 'assign',
      edit: ({ fresh }, _drafts, pick) => pick(fresh, 300),
    },
  ];

  for (const failure of failures) {
    it(`unassigns nothing when phase 1 fails on ${failure.name}, even when the rest of phase 1 went through`, async () => {
      const orgId = await newOrg();
      const [ivy, jon, kim, lou] = await Promise.all([persona('Ivy'), persona('Jon'), persona('Kim'), persona('Lou')]);
      await assign(orgId, ivy.id);
      const dropped = await assign(orgId, jon.id);
      const auditBefore = await audit(orgId);

      const { outcome, sent } = await saveStep(orgId, async (drafts, pick) => {
        drafts[jon.id] = { ...drafts[jon.id]!, selected: false };
        // A change that succeeds, and the one the server refuses.
        pick(lou.id);
        await failure.edit({ kept: ivy.id, dropped: jon.id, fresh: kim.id }, drafts, pick);
      });
      expect(outcome.unassignSkipped).toBe(true);
      expect(outcome.failures).toHaveLength(1);
      expect(outcome.failures[0]).toMatchObject({ action: failure.action });
      expect((outcome.failures[0]!.error as Refusal).status).toBe(failure.status);
      expect(sent.some((s) => s.startsWith('DELETE'))).toBe(false);

      // Jon is still assigned: the row, the list and the audit log agree.
      expect((await stored(orgId)).get(jon.id)?.unassignedAt).toBeNull();
      expect((await assignments(orgId)).map((x) => x.specialistId)).toEqual([ivy.id, jon.id, lou.id]);
      const added = (await audit(orgId)).slice(auditBefore.length);
      expect(added.map((r) => r.action)).toEqual(['osa.assigned']);

      // Once the AM drops the refused change, the same deselection goes through.
      const retry = await saveStep(orgId, (drafts) => {
        drafts[jon.id] = { ...drafts[jon.id]!, selected: false };
      });
      expect(retry.outcome).toEqual({ failures: [], unassignSkipped: false });
      expect(retry.sent).toEqual([`DELETE /specialist/${jon.id}`]);
      expect((await assignments(orgId)).some((x) => x.id === dropped.id)).toBe(false);
    });
  }

  it('unassigns nothing when a Specialist picked on a stale page was assigned meanwhile (409)', async () => {
    const orgId = await newOrg();
    const [max, nia, oto] = await Promise.all([persona('Max'), persona('Nia'), persona('Oto')]);
    await assign(orgId, max.id);
    await assign(orgId, nia.id);
    // The AM opened the step before a superadmin assigned Oto.
    const stale = await assignments(orgId);
    expect((await app.post(`/api/am/orgs/${orgId}/specialist`, { specialistId: oto.id }, { token: superadmin })).status).toBe(201);
    const { drafts, order } = draftsOf(stale);
    drafts[nia.id] = { ...drafts[nia.id]!, selected: false };
    drafts[oto.id] = { selected: true, rate: '', reason: '' };
    order.push(oto.id);
    const sent: string[] = [];
    const outcome = await runSpecialistStep(planSave(drafts, order, stale), callsOf(orgId, sent));
    expect(outcome.unassignSkipped).toBe(true);
    expect((outcome.failures[0]!.error as Refusal).status).toBe(409);
    expect(sent).toEqual(['POST /specialist']);
    expect((await assignments(orgId)).map((x) => x.specialistId)).toEqual([max.id, nia.id, oto.id]);
  });
});
