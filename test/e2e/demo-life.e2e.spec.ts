import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/modules/demo/index.js';
import { DEMO_THREADS } from '../../src/modules/demo/demo.life.data.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
const rowsOf = <T>(result: unknown): T[] => (result as { rows?: T[] }).rows ?? (result as T[]);

/** A fresh start (README "Demo data"): the demo org is alive, and seeding it again adds nothing. */
describe('the demo data of a fresh start', () => {
  let app: TestApp;
  let db: DbService;
  let acmeId: string;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    app = await startTestApp({ seeded: false });
    expect(await app.running.app.get(DemoService).seedIfEmpty({ activity: true })).toBe(true);
    db = app.running.app.get(DbService);
    for (const who of ['superadmin@platform', 'account_manager@platform', 'expert@platform', 'client@acme', 'org_admin@acme']) {
      tokens[who.split('@')[0]!] = await app.login(`${who}.demo.invalid`, PASSWORD);
    }
    acmeId = (await app.get('/api/auth/me', { token: tokens.org_admin })).body.orgMemberships[0].orgId;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  const count = async (query: ReturnType<typeof sql>) => Number(rowsOf<{ n: string | number }>(await db.root.execute(query))[0]!.n);

  it('has conversations in every status of spec 3.1, on the web and two channels, with weeks of history', async () => {
    const byStatus = Object.fromEntries(
      rowsOf<{ status: string; n: string | number }>(await db.root.execute(sql`select status, count(*) n from conversations where org_id = ${acmeId} group by status`)).map((r) => [
        r.status,
        Number(r.n),
      ]),
    );
    expect(byStatus).toEqual({ pending: 3, awaiting_client: 2, resolved: 2, snoozed: 1 });
    const channels = rowsOf<{ channel: string }>(await db.root.execute(sql`select distinct channel from conversations where org_id = ${acmeId} order by channel`)).map((r) => r.channel);
    expect(channels).toEqual(['email', 'messaging-a', 'web']);
    const oldest = rowsOf<{ days: string | number }>(await db.root.execute(sql`select extract(day from now() - min(created_at)) days from conversation_messages where org_id = ${acmeId}`))[0]!;
    expect(Number(oldest.days)).toBeGreaterThanOrEqual(25);
    // The client reads them through the API like any other conversation.
    const listed = await app.get('/api/conversations?limit=50', { token: tokens.client });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(DEMO_THREADS.length);
  });

  it('has two Specialists, the primary Émilie, and every conversation on one of them', async () => {
    const osas = (await app.get(`/api/am/orgs/${acmeId}/specialist-assignments`, { token: tokens.account_manager })).body.items as Array<{
      id: string;
      isPrimary: boolean;
      specialist: { name: string };
    }>;
    expect(osas.map((o) => o.specialist.name).sort()).toEqual(['Jean-Luc Moreau', 'Émilie Laurent']);
    expect(osas.find((o) => o.isPrimary)?.specialist.name).toBe('Émilie Laurent');
    const ids = osas.map((o) => o.id);
    expect(await count(sql`select count(*) n from conversations where org_id = ${acmeId} and not (assignment_id = any(${`{${ids.join(',')}}`}::uuid[]))`)).toBe(0);
    expect(await count(sql`select count(distinct assignment_id) n from conversations where org_id = ${acmeId}`)).toBe(2);
  });

  it('has an escalation on the Expert attention list', async () => {
    const queue = await app.get('/api/expert-queue?status=all', { token: tokens.expert });
    expect(queue.status).toBe(200);
    const items = queue.body.items as Array<{ reason: string; status: string }>;
    expect(items.filter((i) => i.reason === 'escalation')).toHaveLength(1);
    expect(items.find((i) => i.reason === 'escalation')?.status).toBe('pending');
  });

  it('has a month of cost ledger, one row per Specialist reply, matching the conversations', async () => {
    const replies = await count(sql`select count(*) n from conversation_messages where org_id = ${acmeId} and role = 'specialist'`);
    expect(replies).toBe(DEMO_THREADS.reduce((n, t) => n + t.exchanges.length, 0));
    expect(await count(sql`select count(*) n from llm_runs where org_id = ${acmeId}`)).toBe(replies);
    // Every ledger row names the conversation and the OSA of that conversation.
    expect(
      await count(sql`select count(*) n from llm_runs r join conversations c on c.id = r.conversation_id where r.org_id = ${acmeId} and r.osa_id = c.assignment_id and r.cost_micro_usd > 0`),
    ).toBe(replies);
    expect(await count(sql`select count(distinct date(created_at)) n from llm_runs where org_id = ${acmeId} and created_at > now() - interval '31 days'`)).toBeGreaterThanOrEqual(8);
    const costs = await app.get('/api/ops/billing/costs', { token: tokens.superadmin });
    expect(costs.status).toBe(200);
    expect(costs.body.totalMicroUsd).toBeGreaterThan(0);
    expect((costs.body.trend as Array<{ costMicroUsd: number }>).filter((p) => p.costMicroUsd > 0).length).toBeGreaterThanOrEqual(5);
  });

  it("has last month's invoice, one line per Specialist", async () => {
    const invoices = await app.get(`/api/orgs/${acmeId}/invoices`, { token: tokens.org_admin });
    expect(invoices.status).toBe(200);
    expect(invoices.body.items).toHaveLength(1);
    expect(invoices.body.items[0].lines).toHaveLength(2);
    expect(invoices.body.items[0].totalCents).toBeGreaterThan(0);
  });

  it('has notifications for the demo users, the client told of the Specialist replies without naming the Expert', async () => {
    const list = async (who: string) => (await app.get('/api/notifications', { token: tokens[who] })).body as Array<{ type: string; title: string; message: string }>;
    const client = await list('client');
    expect(client.filter((n) => n.type === 'conversation.specialist_replied').length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(client)).not.toMatch(/expert/i);
    expect((await list('expert')).some((n) => n.type === 'expert_queue.escalation')).toBe(true);
    expect((await list('org_admin')).some((n) => n.type === 'billing.invoice_issued')).toBe(true);
    expect((await list('account_manager')).length).toBeGreaterThanOrEqual(2);
  });

  it('seeds once: a second start adds nothing', async () => {
    const totals = async () =>
      rowsOf(
        await db.root.execute(
          sql`select (select count(*) from conversations) c, (select count(*) from conversation_messages) m, (select count(*) from llm_runs) r, (select count(*) from invoices) i, (select count(*) from app_notifications) n`,
        ),
      )[0];
    const before = await totals();
    expect(await app.running.app.get(DemoService).seedIfEmpty({ activity: true })).toBe(false);
    expect(await totals()).toEqual(before);
  });

  it('stays out of the test runs: the seeded template of every other test has a quiet demo org', async () => {
    const quiet = await startTestApp();
    try {
      const token = await quiet.login('client@acme.demo.invalid', PASSWORD);
      expect((await quiet.get('/api/conversations', { token })).body.items).toEqual([]);
    } finally {
      await quiet.close();
    }
  });
});
