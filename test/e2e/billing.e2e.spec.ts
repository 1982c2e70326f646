import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { llmRuns } from '../../src/modules/agent/agent.tables.js';
import { ConversationsService, TurnsService } from '../../src/modules/conversations/index.js';
import { conversationMessages, conversationTurns, conversations } from '../../src/modules/conversations/conversations.tables.js';
import { BillingService, DunningService } from '../../src/modules/billing/index.js';
import { billingSubscriptions, llmCostDaily, llmCostRollupDays } from '../../src/modules/billing/billing.tables.js';
import { CostsService } from '../../src/modules/billing/costs.service.js';
import { ReconciliationService } from '../../src/modules/billing/reconciliation.service.js';
import { billingSignature } from '../../src/modules/billing/webhook.verify.js';
import { UsersService } from '../../src/modules/users/index.js';
import { Clock } from '../../src/platform/clock/clock.js';
import { durableEventsDelivered } from '../support/durable-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { closeCurrentMonth } from '../support/billing.js';
import { activeGlobex, demoCast, type DemoCast } from '../support/tenants.js';
import { unscopedOrg } from '../../src/platform/tenancy/org-scope.js';

const SECRET = 'whsec_billing_test';
const PASSWORD = 'demo1234';
const DAY_MS = 86_400_000;

/** A stand-in tracing tool: answers the daily metrics with the cost set per day, records the calls. */
async function startTracing() {
  const costs = new Map<string, number>();
  const calls: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const server: Server = createServer((req, res) => {
    calls.push({ url: req.url ?? '', headers: req.headers });
    const from = new URL(req.url ?? '/', 'http://x').searchParams.get('fromTimestamp')?.slice(0, 10) ?? '';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: costs.has(from) ? [{ date: from, countTraces: 3, totalCost: costs.get(from) }] : [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, costs, calls, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);

describe('billing, dunning and the access gate; cost panels and Expert analytics', () => {
  let app: TestApp;
  let c: DemoCast;
  let tracing: Awaited<ReturnType<typeof startTracing>>;
  let billingMember: string;
  let adminMember: string;
  let expert: string;
  let acmeOsa: { id: string; specialistId: string };
  let second: { id: string; osaId: string };

  const signed = (body: unknown, t = Math.floor(Date.now() / 1000), secret = SECRET) => {
    const raw = JSON.stringify(body);
    return { raw, headers: { 'content-type': 'application/json', 'x-billing-signature': billingSignature(secret, t, raw) } };
  };
  const webhook = (body: unknown, headers: Record<string, string>) => app.request('POST', '/api/billing/provider/webhook', { body: typeof body === 'string' ? body : JSON.stringify(body), headers });
  /** Once the queue has delivered every durable event so far (payment failures and cost alerts are). */
  const notificationsOf = async (token: string, type: string) => {
    await durableEventsDelivered(app.running.dbService);
    return ((await app.get('/api/notifications?limit=200', { token })).body as Array<{ type: string; meta: Record<string, unknown> }>).filter((n) => n.type === type);
  };
  const member = async (email: string, orgRole: 'billing' | 'admin') => {
    const users = app.running.app.get(UsersService);
    const user = await users.create({ email, name: `Demo ${orgRole}`, platformRole: 'org_member', password: PASSWORD });
    await users.addMembership(unscopedOrg(c.acmeId, 'test setup'), user.id, orgRole);
    return app.login(email, PASSWORD);
  };

  beforeAll(async () => {
    tracing = await startTracing();
    app = await startTestApp({
      env: { BILLING_WEBHOOK_SECRET: SECRET, BILLING_GRACE_DAYS: '7', TRACING_BASE_URL: tracing.url, TRACING_PUBLIC_KEY: 'pk-test', TRACING_SECRET_KEY: 'sk-test' },
      // The tests run the rollup, reconciliation and sweeps themselves; a periodic run between two reads would change the panels.
      periodic: false,
    });
    c = await demoCast(app);
    billingMember = await member('billing@acme.demo.invalid', 'billing');
    adminMember = await member('admin@acme.demo.invalid', 'admin');
    expert = await app.login('expert@platform.demo.invalid', PASSWORD);
    [acmeOsa] = (await app.get(`/api/am/orgs/${c.acmeId}/specialist-assignments`, { token: c.am })).body.items;
    // A second active org with the same catalog Specialist: N orgs give N fees.
    const org = await activeGlobex(app, c.am, [{ specialistId: acmeOsa.specialistId, monthlyRate: 1200 }]);
    second = { id: org.id, osaId: org.osas[0]!.id };
  });
  afterAll(async () => {
    await app?.close();
    await tracing?.close();
  });

  describe('role rules of every billing route (spec 5.1)', () => {
    it('opens billing settings and invoices to owner, admin and billing only; others of the org get 403, other orgs and staff 404', async () => {
      const routes = [
        ['GET', `/api/orgs/${c.acmeId}/billing`, undefined],
        ['PATCH', `/api/orgs/${c.acmeId}/billing`, { billingEmail: 'ap@acme.example.com' }],
        ['GET', `/api/orgs/${c.acmeId}/invoices`, undefined],
        ['POST', `/api/orgs/${c.acmeId}/billing/payment-method`, { kind: 'bank_transfer', label: 'Wire from Acme Bank' }],
      ] as const;
      for (const [method, path, body] of routes) {
        for (const token of [c.owner, adminMember, billingMember]) expect((await app.request(method, path, { token, body })).status, `${method} ${path}`).toBe(200);
        expect((await app.request(method, path, { token: c.member, body })).status).toBe(403);
        for (const token of [c.hooliOwner, c.am, c.superadmin]) expect((await app.request(method, path, { token, body })).status).toBe(404);
        expect((await app.request(method, path, { body })).status).toBe(401);
      }
      const settings = (await app.get(`/api/orgs/${c.acmeId}/billing`, { token: billingMember })).body;
      expect(settings).toMatchObject({
        orgId: c.acmeId,
        billingEmail: 'ap@acme.example.com',
        provider: 'manual',
        paymentMethod: { kind: 'bank_transfer', label: 'Wire from Acme Bank' },
        dunning: { paymentState: 'ok' },
      });
      expect(settings).not.toHaveProperty('providerCustomerId');
      expect(settings.upcomingInvoice).toMatchObject({ id: null, status: 'upcoming', period: today().slice(0, 7) });
      expect((await app.patch(`/api/orgs/${c.acmeId}/billing`, { billingEmail: 'not-an-email' }, { token: c.owner })).body).toMatchObject({ statusCode: 400, code: 'validation_failed' });
    });

    it('gives the setup-mode checkout URL to the same roles', async () => {
      const ok = await app.get('/api/client/billing/checkout-url', { token: billingMember });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ provider: 'manual', mode: 'setup' });
      expect(ok.body.url).toContain(`/client/settings/billing/payment-method?orgId=${c.acmeId}`);
      expect((await app.get('/api/client/billing/checkout-url', { token: c.member })).status).toBe(403);
      expect((await app.get('/api/client/billing/checkout-url', { token: c.am })).status).toBe(404);
      expect((await app.get(`/api/client/billing/checkout-url?orgId=${c.hooliId}`, { token: c.owner })).status).toBe(404);
    });

    it('opens the ops payment list to superadmins and account managers, the cost panels and analytics to superadmins only', async () => {
      expect((await app.get('/api/ops/billing/orgs', { token: c.superadmin })).status).toBe(200);
      expect((await app.get('/api/ops/billing/orgs', { token: c.am })).status).toBe(200);
      for (const token of [expert, c.aiOperator, c.owner, c.member]) expect((await app.get('/api/ops/billing/orgs', { token })).status).toBe(403);
      const superOnly = [
        ['GET', `/api/ops/billing/orgs/${c.acmeId}`, undefined],
        ['GET', '/api/ops/billing/costs', undefined],
        ['GET', '/api/ops/analytics/expert-workload', undefined],
        ['GET', '/api/ops/analytics/expert-leverage', undefined],
        ['POST', '/api/ops/billing/invoices/run', { period: '2020-01' }],
        ['POST', `/api/ops/billing/invoices/${c.acmeId}/payments`, { outcome: 'paid' }],
      ] as const;
      for (const [method, path, body] of superOnly) {
        for (const token of [c.am, expert, c.aiOperator, c.owner, billingMember]) expect((await app.request(method, path, { token, body })).status, `${method} ${path}`).toBe(403);
        expect((await app.request(method, path, { body })).status).toBe(401);
      }
      expect((await app.get(`/api/ops/billing/orgs/${c.acmeId}`, { token: c.superadmin })).status).toBe(200);
      expect((await app.post(`/api/ops/billing/invoices/${c.acmeId}/payments`, { outcome: 'paid' }, { token: c.superadmin })).status).toBe(404);
    });
  });

  describe('cost panels from the llm_runs ledger (spec 8.1), never invoiced', () => {
    it('shows the platform trend, top orgs, cost by Specialist (one Specialist on two orgs folded) and by purpose, the same before and after the daily rollup', async () => {
      const db = app.running.dbService.db;
      const at = (daysBack: number) => new Date(Date.now() - daysBack * DAY_MS);
      await db.insert(llmRuns).values([
        {
          orgId: c.acmeId,
          osaId: acmeOsa.id,
          purpose: 'chat-hermes',
          provider: 'openai',
          model: 'gpt-4o-mini',
          inputTokens: 1000,
          outputTokens: 200,
          costMicroUsd: 2_500_000,
          outcome: 'ok',
          createdAt: at(3),
        },
        {
          orgId: c.acmeId,
          osaId: acmeOsa.id,
          purpose: 'summarize',
          provider: 'openai',
          model: 'gpt-4o-mini',
          inputTokens: 100,
          outputTokens: 20,
          costMicroUsd: 500_000,
          outcome: 'ok',
          createdAt: at(3),
        },
        {
          orgId: second.id,
          osaId: second.osaId,
          purpose: 'chat-hermes',
          provider: 'openai',
          model: 'gpt-4o-mini',
          inputTokens: 300,
          outputTokens: 60,
          costMicroUsd: 1_000_000,
          outcome: 'error',
          error: 'HTTP 500',
          createdAt: at(0),
        },
      ]);
      const read = async () => (await app.get(`/api/ops/billing/costs?from=${daysAgo(6)}&to=${today()}`, { token: c.superadmin })).body;
      const live = await read();
      expect(live.totalMicroUsd).toBe(4_000_000);
      expect(live.trend).toHaveLength(7);
      expect(live.trend.find((p: { day: string }) => p.day === daysAgo(3))).toMatchObject({ costMicroUsd: 3_000_000, calls: 2 });
      expect(live.trend.at(-1)).toMatchObject({ day: today(), costMicroUsd: 1_000_000, calls: 1 });
      expect(live.topOrgs.map((o: { key: string; costMicroUsd: number }) => [o.key, o.costMicroUsd])).toEqual([
        [c.acmeId, 3_000_000],
        [second.id, 1_000_000],
      ]);
      expect(live.bySpecialist).toEqual([expect.objectContaining({ key: acmeOsa.specialistId, label: 'Émilie Laurent', costMicroUsd: 4_000_000, calls: 3 })]);
      expect(live.byPurpose.map((p: { label: string; costMicroUsd: number }) => [p.label, p.costMicroUsd])).toEqual([
        ['chat-hermes', 3_500_000],
        ['summarize', 500_000],
      ]);
      // The scheduled `billing.cost-rollup` may roll these days at the same moment: the rollup is
      // judged by what it leaves in its tables, not by which caller rolled a day.
      const costs = app.running.app.get(CostsService);
      await costs.rollupClosedDays();
      const rolledDays = (await db.select().from(llmCostRollupDays)).map((r) => r.day);
      expect(rolledDays).toContain(daysAgo(3));
      expect(rolledDays).not.toContain(today());
      const rollupOf = async (day: string) =>
        (await db.select().from(llmCostDaily).where(eq(llmCostDaily.day, day)))
          .map((r) => [r.orgId, r.osaId, r.purpose, r.costMicroUsd, r.calls])
          .sort((a, b) => String(a[2]).localeCompare(String(b[2])));
      expect(await rollupOf(daysAgo(3))).toEqual([
        [c.acmeId, acmeOsa.id, 'chat-hermes', 2_500_000, 1],
        [c.acmeId, acmeOsa.id, 'summarize', 500_000, 1],
      ]);
      expect(await rollupOf(today())).toEqual([]);
      expect(await read()).toEqual(live);
      // Every closed day is rolled now: a second run, whoever makes it, has nothing to roll and changes nothing.
      expect(await costs.rollupClosedDays()).toEqual([]);
      expect(await rollupOf(daysAgo(3))).toHaveLength(2);
      expect(await read()).toEqual(live);
    });

    it("shows one org's hourly and daily message usage (never billed) and its cost per Specialist", async () => {
      const conv = await app.post('/api/conversations', { message: 'How much did we use?' }, { token: c.member });
      expect(conv.status).toBe(201);
      const body = (await app.get(`/api/ops/billing/orgs/${c.acmeId}?from=${daysAgo(6)}&to=${today()}`, { token: c.superadmin })).body;
      expect(body.org).toMatchObject({ orgId: c.acmeId, paymentState: 'ok', specialistInstances: 1 });
      expect(body.totalMicroUsd).toBe(3_000_000);
      expect(body.costBySpecialist).toEqual([expect.objectContaining({ key: acmeOsa.specialistId, costMicroUsd: 3_000_000 })]);
      const sumOf = (points: Array<{ clientMessages: number; specialistMessages: number }>) => points.reduce((n, p) => n + p.clientMessages + p.specialistMessages, 0);
      expect(body.hourlyUsage.reduce((n: number, p: { clientMessages: number }) => n + p.clientMessages, 0)).toBeGreaterThanOrEqual(1);
      expect(sumOf(body.dailyUsage)).toBe(sumOf(body.hourlyUsage));
      expect(body.quota).toMatchObject({ limit: 1000 });
      // Usage shows, and nothing usage-based reaches the invoice: the preview is the flat fee only.
      const preview = (await app.get(`/api/orgs/${c.acmeId}/billing`, { token: c.owner })).body.upcomingInvoice;
      expect(preview.lines).toHaveLength(1);
      expect(preview.lines[0].assignmentId).toBe(acmeOsa.id);
    });

    it('reconciles a day with the tracing tool and alerts superadmins once when it drifts over 5 % or 1 USD', async () => {
      const reconciliation = app.running.app.get(ReconciliationService);
      const day = daysAgo(3);
      tracing.costs.set(day, 2.9); // ledger 3.00 USD: 3.3 % and 0.10 USD apart: no alert
      expect(await reconciliation.reconcile(day)).toMatchObject({ ledgerMicroUsd: 3_000_000, tracingMicroUsd: 2_900_000, alerted: false });
      expect(await notificationsOf(c.superadmin, 'billing.cost_drift')).toHaveLength(0);
      const call = tracing.calls.at(-1)!;
      expect(call.headers.authorization).toBe(`Basic ${Buffer.from('pk-test:sk-test').toString('base64')}`);
      expect(call.headers['user-agent']).toMatch(/^Mozilla\/5\.0 .*Chrome/);
      expect(call.url).toContain('/api/public/metrics/daily?fromTimestamp=');

      tracing.costs.set(day, 2.4); // 20 % apart
      expect(await reconciliation.reconcile(day)).toMatchObject({ tracingMicroUsd: 2_400_000, driftMicroUsd: 600_000, alerted: true });
      const alerts = await notificationsOf(c.superadmin, 'billing.cost_drift');
      expect(alerts).toHaveLength(1);
      expect(alerts[0]!.meta).toMatchObject({ day, ledgerMicroUsd: 3_000_000, tracingMicroUsd: 2_400_000 });
      await reconciliation.reconcile(day);
      expect(await notificationsOf(c.superadmin, 'billing.cost_drift')).toHaveLength(1);
      expect(await notificationsOf(c.am, 'billing.cost_drift')).toHaveLength(0);

      // Over 1 USD on a bigger day drifts even under 5 %.
      const big = daysAgo(5);
      await app.running.dbService.db
        .insert(llmRuns)
        .values({ orgId: c.acmeId, osaId: acmeOsa.id, purpose: 'chat-hermes', provider: 'openai', model: 'gpt-4o', costMicroUsd: 40_000_000, outcome: 'ok', createdAt: new Date(`${big}T12:00:00Z`) });
      await app.running.app.get(CostsService).rollupDay(big);
      tracing.costs.set(big, 38.5);
      expect(await reconciliation.reconcile(big)).toMatchObject({ driftMicroUsd: 1_500_000, alerted: true });
      expect(await notificationsOf(c.superadmin, 'billing.cost_drift')).toHaveLength(2);
      // The platform panel shows the last day checked: today, 1.00 USD in the ledger and nothing traced (100 %).
      expect(await reconciliation.reconcile(today())).toMatchObject({ ledgerMicroUsd: 1_000_000, tracingMicroUsd: 0, alerted: true });
      expect((await app.get('/api/ops/billing/costs', { token: c.superadmin })).body.reconciliation).toMatchObject({ day: today(), ledgerMicroUsd: 1_000_000, driftPercent: 100, alerted: true });
    });
  });

  describe('Expert analytics (spec 8.1)', () => {
    it('counts attention-list items and handle time per Specialist, and clients and instances per Expert', async () => {
      const conv = (await app.post('/api/conversations', { message: 'I need a human' }, { token: c.member })).body;
      expect((await app.post(`/api/conversations/${conv.id}/escalate`, { reason: 'please call me' }, { token: c.member })).status).toBeLessThan(300);
      expect((await app.request('PATCH', `/api/conversations/${conv.id}/status`, { token: expert, body: { status: 'resolved' } })).status).toBe(200);
      const workload = (await app.get('/api/ops/analytics/expert-workload', { token: c.superadmin })).body;
      expect(workload.items).toEqual([
        expect.objectContaining({ specialistId: acmeOsa.specialistId, name: 'Émilie Laurent', items: 1, resolved: 1, open: 0, escalations: 1, avgHandleMinutes: expect.any(Number) }),
      ]);
      const leverage = (await app.get('/api/ops/analytics/expert-leverage', { token: c.superadmin })).body;
      expect(leverage.items.find((e: { email: string }) => e.email === 'expert@platform.demo.invalid')).toMatchObject({ clients: 1, specialistInstances: 1 });
    });
  });

  describe('provider webhook (API-MAP.md "Billing")', () => {
    const event = (id: string, type = 'payment_succeeded') => ({ id, type, data: { orgId: c.acmeId } });

    it('answers 401 to a missing, wrong, stale or foreign signature and does nothing', async () => {
      const { raw, headers } = signed(event('evt_sig'));
      expect((await webhook(raw, { 'content-type': 'application/json' })).status).toBe(401);
      expect((await webhook(raw, { ...headers, 'x-billing-signature': headers['x-billing-signature'].replace(/v1=(.)/, (_, ch: string) => `v1=${ch === '0' ? '1' : '0'}`) })).status).toBe(401);
      expect((await webhook(raw, signed(event('evt_sig'), Math.floor(Date.now() / 1000) - 301).headers)).status).toBe(401);
      expect((await webhook(raw, signed(event('evt_sig'), undefined, 'another-secret').headers)).status).toBe(401);
      // Signed over other bytes than those sent.
      expect((await webhook(raw.replace('evt_sig', 'evt_sig2'), headers)).status).toBe(401);
      const refused = await webhook(raw, { ...headers, 'x-billing-signature': 'garbage' });
      expect(refused.body).toMatchObject({ statusCode: 401, code: 'unauthorized' });
      // None of those was recorded: the properly signed event is still new.
      expect((await webhook(raw, headers)).body).toEqual({ ok: true, duplicate: false });
    });

    it("answers 404 on Stripe's own webhook while the provider is manual, however it is signed", async () => {
      const payload = JSON.stringify({ id: 'evt_manual_1', object: 'event', type: 'invoice.payment_failed', data: { object: { id: 'in_1', object: 'invoice', customer: `manual_cus_${c.acmeId}` } } });
      const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
      const res = await app.request('POST', '/api/billing/stripe/webhook', { body: payload, headers: { 'content-type': 'application/json', 'stripe-signature': header } });
      expect(res.body).toMatchObject({ statusCode: 404, code: 'not_found' });
      expect((await app.get(`/api/orgs/${c.acmeId}/billing`, { token: c.owner })).body.dunning.paymentState).toBe('ok');
    });

    it('validates a signed body, and answers a replayed event id with 200 without acting again', async () => {
      const bad = signed({ id: 'evt_bad', type: 'refund', data: { orgId: c.acmeId } });
      expect((await webhook(bad.raw, bad.headers)).body).toMatchObject({ statusCode: 400, code: 'validation_failed' });
      const failed = signed({ id: 'evt_replay', type: 'payment_failed', data: { orgId: c.acmeId, failureReason: 'card declined' } });
      expect((await webhook(failed.raw, failed.headers)).body).toEqual({ ok: true, duplicate: false });
      expect(await notificationsOf(billingMember, 'billing.payment_failed')).toHaveLength(1);
      const again = await webhook(failed.raw, signed(JSON.parse(failed.raw)).headers);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ ok: true, duplicate: true });
      expect(await notificationsOf(billingMember, 'billing.payment_failed')).toHaveLength(1);
      const cleared = signed(event('evt_replay_ok'));
      expect((await webhook(cleared.raw, cleared.headers)).body).toEqual({ ok: true, duplicate: false });
      expect((await app.get(`/api/orgs/${c.acmeId}/billing`, { token: c.owner })).body.dunning).toMatchObject({ paymentState: 'ok', graceEndsAt: null });
    });
  });

  describe('invoices (spec 2.8)', () => {
    it('keeps one subscription per OSA at the provider, on the plan of its rate (plan_per_rate), moved by a rate change', async () => {
      const billing = app.running.app.get(BillingService);
      const subs = async () => app.running.dbService.db.select().from(billingSubscriptions).orderBy(billingSubscriptions.createdAt);
      expect(await billing.syncAccountsAndSubscriptions()).toMatchObject({ subscriptions: 2 });
      const catalogCents = Math.round((await app.get(`/api/specialists/${acmeOsa.specialistId}`, { token: c.superadmin })).body.monthly_rate_config.base_rate * 100);
      expect((await subs()).map((x) => [x.assignmentId, x.plan, x.providerSubscriptionId, x.endsOn])).toEqual(
        expect.arrayContaining([
          [acmeOsa.id, `rate_usd_${catalogCents}`, `manual_sub_${acmeOsa.id}`, null],
          [second.osaId, 'rate_usd_120000', `manual_sub_${second.osaId}`, null],
        ]),
      );
      expect((await app.patch(`/api/am/orgs/${second.id}/specialist-assignments/${second.osaId}`, { monthlyRate: 1500, overrideReason: 'new price' }, { token: c.am })).status).toBe(200);
      await billing.syncAccountsAndSubscriptions();
      expect((await subs()).find((x) => x.assignmentId === second.osaId)!.plan).toBe('rate_usd_150000');
      expect(await subs()).toHaveLength(2);
    });

    it('runs the monthly invoice job idempotently: one invoice per org with one prorated line per Specialist instance; the same Specialist on two orgs is two fees', async () => {
      // Move business time into the next month, so this month is closed.
      const clock = app.running.app.get(Clock);
      const { period, days, activeDays, prorated } = closeCurrentMonth(app);
      const catalog = (await app.get(`/api/specialists/${acmeOsa.specialistId}`, { token: c.superadmin })).body.monthly_rate_config.base_rate as number;

      const first = await app.post('/api/ops/billing/invoices/run', {}, { token: c.superadmin });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ period, created: 2, existing: 0 });
      expect((await app.post('/api/ops/billing/invoices/run', { period }, { token: c.superadmin })).body).toMatchObject({ period, created: 0, existing: 2 });
      expect((await app.post('/api/ops/billing/invoices/run', { period: clock.now().toISOString().slice(0, 7) }, { token: c.superadmin })).status).toBe(400);

      const acme = (await app.get(`/api/orgs/${c.acmeId}/invoices`, { token: c.owner })).body.items;
      expect(acme).toHaveLength(1);
      expect(acme[0]).toMatchObject({ period, status: 'open', currency: 'USD', providerInvoiceId: expect.stringMatching(/^manual_inv_/), totalCents: prorated(Math.round(catalog * 100)) });
      expect(acme[0].lines).toEqual([
        expect.objectContaining({ assignmentId: acmeOsa.id, specialistId: acmeOsa.specialistId, daysActive: activeDays, daysInMonth: days, amountCents: prorated(Math.round(catalog * 100)) }),
      ]);
      const globexOwner = await app.demoLogin('org_admin', 'globex');
      const globex = (await app.get(`/api/orgs/${second.id}/invoices`, { token: globexOwner })).body.items;
      expect(globex).toHaveLength(1);
      expect(globex[0].lines).toEqual([
        expect.objectContaining({
          assignmentId: second.osaId,
          specialistId: acmeOsa.specialistId,
          amountCents: prorated(150000),
          periods: [expect.objectContaining({ source: 'override', monthlyRateCents: 150000 })],
        }),
      ]);
      // (Both of its rate versions were made the same day: the later one is that day's rate.)
      // Another org's invoices stay out of reach.
      expect((await app.get(`/api/orgs/${second.id}/invoices`, { token: c.owner })).status).toBe(404);
    });
  });

  describe('dunning and the access gate (spec 3.6)', () => {
    it('failure -> notifications -> grace elapsed -> suspended -> 403 org_suspended for clients -> payment -> active again', async () => {
      const clock = app.running.app.get(Clock);
      const invoice = (await app.get(`/api/orgs/${c.acmeId}/invoices`, { token: c.owner })).body.items[0];
      const before = { am: (await notificationsOf(c.am, 'billing.payment_failed')).length, owner: (await notificationsOf(c.owner, 'billing.payment_failed')).length };

      const failed = signed({
        id: 'evt_dunning_1',
        type: 'payment_failed',
        data: { orgId: c.acmeId, invoiceId: invoice.id, amount: invoice.totalCents / 100, currency: 'USD', failureReason: 'insufficient funds' },
      });
      expect((await webhook(failed.raw, failed.headers)).body).toEqual({ ok: true, duplicate: false });

      // The assigned AM and the owner, admin and billing members are told; a plain member is not.
      for (const [token, had] of [
        [c.am, before.am],
        [c.owner, before.owner],
      ] as const) {
        const list = await notificationsOf(token, 'billing.payment_failed');
        expect(list).toHaveLength(had + 1);
        expect(list[0]!.meta).toMatchObject({ orgId: c.acmeId, invoiceId: invoice.id });
      }
      expect(await notificationsOf(adminMember, 'billing.payment_failed')).not.toHaveLength(0);
      expect(await notificationsOf(billingMember, 'billing.payment_failed')).toHaveLength(2);
      expect(await notificationsOf(c.member, 'billing.payment_failed')).toHaveLength(0);

      const pastDue = (await app.get(`/api/orgs/${c.acmeId}/billing`, { token: c.owner })).body.dunning;
      expect(pastDue).toMatchObject({ paymentState: 'past_due', lastFailureReason: 'insufficient funds' });
      expect(Date.parse(pastDue.graceEndsAt) - clock.now().getTime()).toBeGreaterThan(7 * DAY_MS - 60_000);
      expect((await app.get(`/api/orgs/${c.acmeId}/invoices`, { token: c.owner })).body.items[0]).toMatchObject({ status: 'payment_failed', failureReason: 'insufficient funds' });
      expect((await app.get(`/api/ops/billing/orgs?orgId=${c.acmeId}`, { token: c.am })).body.items).toEqual([expect.objectContaining({ orgId: c.acmeId, paymentState: 'past_due', openInvoices: 1 })]);

      // Within the grace period nothing is suspended.
      const dunning = app.running.app.get(DunningService);
      expect(await dunning.runAccessGate(clock.now())).toEqual([]);
      expect((await app.get('/api/client/specialists', { token: c.member })).status).toBe(200);

      clock.advance(7 * DAY_MS + 60_000);
      expect(await dunning.runAccessGate(clock.now())).toEqual([c.acmeId]);
      expect((await app.get(`/api/orgs/${c.acmeId}`, { token: c.am })).body.status).toBe('suspended');

      // Every other client API answers 403 org_suspended...
      for (const [method, path, token] of [
        ['GET', '/api/client/specialists', c.member],
        ['GET', '/api/client/trial-info', c.owner],
        ['GET', '/api/conversations', c.member],
        ['POST', '/api/conversations', c.member],
        ['GET', `/api/orgs/${c.acmeId}`, c.owner],
        ['GET', `/api/orgs/${c.acmeId}/quota`, c.owner],
      ] as const) {
        const res = await app.request(method, path, { token, body: method === 'POST' ? { message: 'hello?' } : undefined });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body).toMatchObject({ statusCode: 403, code: 'org_suspended', error: 'Forbidden' });
      }
      // ...while client users still sign in and reach billing settings.
      const fresh = await app.login('client@acme.demo.invalid', PASSWORD);
      expect((await app.get('/api/auth/me', { token: fresh })).status).toBe(200);
      expect((await app.get(`/api/orgs/${c.acmeId}/billing`, { token: billingMember })).body.dunning).toMatchObject({ paymentState: 'suspended', suspendedAt: expect.any(String) });
      expect((await app.get('/api/client/billing/checkout-url', { token: c.owner })).status).toBe(200);
      // Their own notifications stay readable: the payment-failure notice explains the suspension.
      expect(await notificationsOf(billingMember, 'billing.payment_failed')).toHaveLength(2);
      // Staff keep working on the org; another org's clients are not affected.
      expect((await app.get(`/api/am/orgs/${c.acmeId}`, { token: c.am })).status).toBe(200);
      expect((await app.get('/api/client/trial-info', { token: c.hooliOwner })).status).toBe(200);

      // The agent takes no turns: a client message left from before the suspension gets none.
      const conv = await app.running.app.get(ConversationsService).openForChannel({ id: crypto.randomUUID(), orgId: c.acmeId, channel: 'web', subject: null });
      const db = app.running.dbService.db;
      const [message] = await db.insert(conversationMessages).values({ conversationId: conv.id, orgId: c.acmeId, role: 'client', content: 'still there?' }).returning();
      await db.insert(conversationTurns).values({ messageId: message!.id, conversationId: conv.id, orgId: c.acmeId });
      const [row] = await db.select().from(conversations).where(eq(conversations.id, conv.id));
      expect(await app.running.app.get(TurnsService).run(row!, message!)).toBeNull();
      expect(await db.select().from(conversationTurns).where(eq(conversationTurns.messageId, message!.id))).toEqual([expect.objectContaining({ status: 'failed', lastError: 'org_suspended' })]);
      expect(await db.select().from(llmRuns).where(eq(llmRuns.messageId, message!.id))).toEqual([]);

      // The way back: the payment clears the dunning and reactivates the org at once.
      const paid = await app.post(`/api/ops/billing/invoices/${invoice.id}/payments`, { outcome: 'paid' }, { token: c.superadmin });
      expect(paid.body).toEqual({ ok: true, duplicate: false });
      expect((await app.get(`/api/orgs/${c.acmeId}`, { token: c.owner })).body.status).toBe('active');
      expect((await app.get(`/api/orgs/${c.acmeId}/billing`, { token: c.owner })).body.dunning).toEqual({
        paymentState: 'ok',
        pastDueSince: null,
        graceEndsAt: null,
        lastFailureReason: null,
        suspendedAt: null,
      });
      expect((await app.get(`/api/orgs/${c.acmeId}/invoices`, { token: c.owner })).body.items[0]).toMatchObject({ status: 'paid', paidAt: expect.any(String) });
      const reply = await app.post('/api/conversations', { message: 'Back again' }, { token: c.member });
      expect(reply.status).toBe(201);
      expect(reply.body.messages).toHaveLength(2);
      expect(await dunning.runAccessGate(clock.now())).toEqual([]);
    });

    it("names the invoice by the provider's own id (any non-empty string), and takes an id it does not know", async () => {
      const invoice = (await app.get(`/api/orgs/${c.acmeId}/invoices`, { token: c.owner })).body.items[0];
      expect(invoice.providerInvoiceId).toMatch(/^manual_inv_/);
      const failed = signed({ id: 'evt_provider_ref_1', type: 'payment_failed', data: { orgId: c.acmeId, invoiceId: invoice.providerInvoiceId, failureReason: 'card declined' } });
      expect((await webhook(failed.raw, failed.headers)).body).toEqual({ ok: true, duplicate: false });
      expect((await app.get(`/api/orgs/${c.acmeId}/invoices`, { token: c.owner })).body.items[0]).toMatchObject({ id: invoice.id, status: 'payment_failed', failureReason: 'card declined' });
      const unknown = signed({ id: 'evt_provider_ref_2', type: 'payment_failed', data: { orgId: c.acmeId, invoiceId: 'in_1QxYzUnknown', failureReason: 'card declined' } });
      expect((await webhook(unknown.raw, unknown.headers)).status).toBe(200);
      const paid = signed({ id: 'evt_provider_ref_3', type: 'payment_succeeded', data: { orgId: c.acmeId, invoiceId: invoice.providerInvoiceId } });
      expect((await webhook(paid.raw, paid.headers)).body).toEqual({ ok: true, duplicate: false });
      expect((await app.get(`/api/orgs/${c.acmeId}/invoices`, { token: c.owner })).body.items[0]).toMatchObject({ id: invoice.id, status: 'paid' });
      expect((await app.get(`/api/orgs/${c.acmeId}/billing`, { token: c.owner })).body.dunning).toMatchObject({ paymentState: 'ok' });
    });
  });
});
