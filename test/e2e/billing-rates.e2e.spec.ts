import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BillingService } from '../../src/modules/billing/index.js';
import { billingAccounts, billingSubscriptions, invoiceLines, invoices } from '../../src/modules/billing/billing.tables.js';
import { billingSignature } from '../../src/modules/billing/webhook.verify.js';
import { closeCurrentMonth } from '../support/billing.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { demoCast, type DemoCast } from '../support/tenants.js';

const SECRET = 'whsec_billing_rates_test';

/**
 * Rates and currencies in billing (spec 2.2, 2.3, 2.8; docs/billing.md): a catalog Specialist
 * may have no rate, and an OSA of it without an override is then skipped (no line, no charge) and
 * reported; an org with Specialists in two currencies gets one invoice per currency; the provider
 * webhook names invoices by the provider's own ids.
 */
describe('billing: rateless Specialists, one invoice per currency, provider invoice ids', () => {
  let app: TestApp;
  let c: DemoCast;
  let seq = 0;
  const specialists: Record<'rateless' | 'euro' | 'dollar', string> = { rateless: '', euro: '', dollar: '' };
  /** Initech: the rateless Specialist without an override, a EUR and a USD one. */
  let initech: { id: string; owner: string; osas: Record<'rateless' | 'euro' | 'dollar', string> };
  /** Vandelay: the rateless Specialist with an override (billed at it). */
  let vandelay: { id: string; osa: string };

  const persona = (name: string, rate?: { base_rate: number; currency: string } | null) => ({
    name,
    slug: `rates-${++seq}-${Date.now().toString(36)}`,
    persona: 'x',
    ...(rate !== undefined && { monthly_rate_config: rate }),
  });

  /** An org made through the AM wizard with these OSAs, finished: active today, no trial. */
  async function activeOrg(name: string, osas: Array<{ specialistId: string; monthlyRate?: number }>) {
    const slug = name.toLowerCase();
    const org = await app.post(
      '/api/am/orgs',
      { legalName: name, slug, industry: 'technology', corporateDomains: [`${slug}.example.com`], adminEmail: `admin@${slug}.example.com`, website: `https://${slug}.example.com`, timezone: 'UTC' },
      { token: c.am },
    );
    expect(org.status).toBe(201);
    const ids: string[] = [];
    for (const o of osas) {
      const body = o.monthlyRate ? { specialistId: o.specialistId, monthlyRate: o.monthlyRate, overrideReason: 'agreed price' } : { specialistId: o.specialistId };
      const res = await app.post(`/api/am/orgs/${org.body.id}/specialist`, body, { token: c.am });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      ids.push(res.body.id as string);
    }
    expect((await app.post(`/api/am/orgs/${org.body.id}/finish`, undefined, { token: c.am })).status).toBe(200);
    return { id: org.body.id as string, slug, osas: ids };
  }

  const opsRow = async (orgId: string) => ((await app.get(`/api/ops/billing/orgs?orgId=${orgId}`, { token: c.superadmin })).body.items as Array<Record<string, unknown> & { orgId: string }>)[0]!;
  const invoicesOf = async (orgId: string) => app.running.dbService.db.select().from(invoices).where(eq(invoices.orgId, orgId)).orderBy(invoices.currency);
  const webhook = (body: unknown) => {
    const raw = JSON.stringify(body);
    return app.request('POST', '/api/billing/provider/webhook', {
      body: raw,
      headers: { 'content-type': 'application/json', 'x-billing-signature': billingSignature(SECRET, Math.floor(Date.now() / 1000), raw) },
    });
  };

  beforeAll(async () => {
    app = await startTestApp({ env: { BILLING_WEBHOOK_SECRET: SECRET } });
    c = await demoCast(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  describe('a catalog Specialist without a rate (spec 2.2, 2.3)', () => {
    it('is created without monthly_rate_config, gains one and loses it again; a bad rate is still refused', async () => {
      const created = await app.post('/api/specialists', persona('Rhea Rateless'), { token: c.superadmin });
      expect(created.status).toBe(201);
      expect(created.body.monthly_rate_config).toBeNull();
      specialists.rateless = created.body.id;
      expect((await app.get(`/api/specialists/${created.body.id}`, { token: c.am })).body.monthly_rate_config).toBeNull();

      const priced = await app.patch(`/api/specialists/${created.body.id}`, { monthly_rate_config: { base_rate: 700, currency: 'usd' } }, { token: c.superadmin });
      expect(priced.body.monthly_rate_config).toEqual({ base_rate: 700, currency: 'USD' });
      const cleared = await app.patch(`/api/specialists/${created.body.id}`, { monthly_rate_config: null }, { token: c.superadmin });
      expect(cleared.status).toBe(200);
      expect(cleared.body.monthly_rate_config).toBeNull();

      const explicitNull = await app.post('/api/specialists', persona('Nell Null', null), { token: c.superadmin });
      expect(explicitNull.status).toBe(201);
      expect(explicitNull.body.monthly_rate_config).toBeNull();
      const bad = await app.post('/api/specialists', persona('Bad Rate', { base_rate: -5, currency: 'dollars' }), { token: c.superadmin });
      expect(bad.body).toMatchObject({ statusCode: 400, code: 'validation_failed' });
      expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['monthly_rate_config.base_rate', 'monthly_rate_config.currency']);

      specialists.euro = (await app.post('/api/specialists', persona('Elsa Euro', { base_rate: 900, currency: 'eur' }), { token: c.superadmin })).body.id;
      specialists.dollar = (await app.post('/api/specialists', persona('Dora Dollar', { base_rate: 1200, currency: 'usd' }), { token: c.superadmin })).body.id;
    });

    it('resolves to no rate on an OSA without an override, and to the override on one with it', async () => {
      const org = await activeOrg('Initech', [{ specialistId: specialists.rateless }, { specialistId: specialists.euro }, { specialistId: specialists.dollar }]);
      initech = { id: org.id, owner: await app.demoLogin('org_admin', org.slug), osas: { rateless: org.osas[0]!, euro: org.osas[1]!, dollar: org.osas[2]! } };
      const other = await activeOrg('Vandelay', [{ specialistId: specialists.rateless, monthlyRate: 500 }]);
      vandelay = { id: other.id, osa: other.osas[0]! };

      const osa = (await app.get(`/api/am/orgs/${initech.id}/specialist-assignments/${initech.osas.rateless}`, { token: c.am })).body;
      expect(osa).toMatchObject({ monthlyRate: null, rate: null, monthly_rate_config: { base_rate: null } });
      const overridden = (await app.get(`/api/am/orgs/${vandelay.id}/specialist-assignments/${vandelay.osa}`, { token: c.am })).body;
      expect(overridden.rate).toEqual({ amount: 500, currency: 'USD', source: 'override' });
    });

    it('subscribes, previews and lists the priced instances only, and shows the rateless one as skipped (no rate) on the ops billing page', async () => {
      const row = await opsRow(initech.id);
      expect(row).toMatchObject({ specialistInstances: 3, currency: 'USD', monthlyRunRateCents: 120000 });
      expect(row.amounts).toEqual([
        { currency: 'USD', monthlyRunRateCents: 120000, outstandingCents: 0, openInvoices: 0 },
        { currency: 'EUR', monthlyRunRateCents: 90000, outstandingCents: 0, openInvoices: 0 },
      ]);
      expect(row.skipped).toEqual([{ orgId: initech.id, assignmentId: initech.osas.rateless, specialistId: specialists.rateless, specialistName: 'Rhea Rateless', reason: 'no_rate' }]);
      // The override bills the same catalog Specialist elsewhere; an org with nothing rateless skips nothing.
      expect(await opsRow(vandelay.id)).toMatchObject({ monthlyRunRateCents: 50000, skipped: [] });
      expect(await opsRow(c.acmeId)).toMatchObject({ skipped: [] });
      expect((await app.get(`/api/ops/billing/orgs/${initech.id}`, { token: c.superadmin })).body.org.skipped).toEqual(row.skipped);

      // No subscription at the provider for the instance without a rate.
      await app.running.app.get(BillingService).syncAccountsAndSubscriptions();
      const subs = await app.running.dbService.db.select().from(billingSubscriptions).where(eq(billingSubscriptions.orgId, initech.id));
      expect(subs.map((s) => s.assignmentId).sort()).toEqual([initech.osas.euro, initech.osas.dollar].sort());

      // The upcoming invoices: one per currency, each totalling its own line; no line for the rateless instance.
      const settings = (await app.get(`/api/orgs/${initech.id}/billing`, { token: initech.owner })).body;
      type Upcoming = { currency: string; totalCents: number; lines: Array<{ assignmentId: string; currency: string; amountCents: number }> };
      const upcoming = (settings.upcomingInvoices as Upcoming[]).map((i) => [i.currency, i.totalCents === i.lines[0]!.amountCents, i.lines.map((l) => [l.assignmentId, l.currency])]);
      expect(upcoming.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
        ['EUR', true, [[initech.osas.euro, 'EUR']]],
        ['USD', true, [[initech.osas.dollar, 'USD']]],
      ]);
      expect(settings.upcomingInvoice).toEqual(settings.upcomingInvoices[0]);
    });
  });

  describe('the monthly invoice run (spec 2.8)', () => {
    it('gives an org one invoice per currency, each totalling its own lines; skips and reports the rateless instance; bills the others; a second run creates nothing', async () => {
      const { period, prorated } = closeCurrentMonth(app);

      // The scheduled run of the same month may run meanwhile: judged by what is in the tables.
      const first = await app.post('/api/ops/billing/invoices/run', { period }, { token: c.superadmin });
      expect(first.status).toBe(200);
      expect(first.body.skipped).toEqual([{ orgId: initech.id, assignmentId: initech.osas.rateless, specialistId: specialists.rateless, specialistName: 'Rhea Rateless', reason: 'no_rate' }]);

      const ours = await invoicesOf(initech.id);
      expect(ours.map((i) => [i.period, i.currency, i.totalCents])).toEqual([
        [period, 'EUR', prorated(90000)],
        [period, 'USD', prorated(120000)],
      ]);
      const lines = await app.running.dbService.db.select().from(invoiceLines).where(eq(invoiceLines.orgId, initech.id));
      expect(lines.map((l) => [l.invoiceId, l.assignmentId, l.currency, l.amountCents]).sort((a, b) => String(a[2]).localeCompare(String(b[2])))).toEqual([
        [ours[0]!.id, initech.osas.euro, 'EUR', prorated(90000)],
        [ours[1]!.id, initech.osas.dollar, 'USD', prorated(120000)],
      ]);
      // Others are still billed: the override of the rateless Specialist, and the demo org.
      expect((await invoicesOf(vandelay.id)).map((i) => [i.currency, i.totalCents])).toEqual([['USD', prorated(50000)]]);
      expect(await invoicesOf(c.acmeId)).toHaveLength(1);

      // The client's invoice list shows each invoice with its currency.
      const listed = (await app.get(`/api/orgs/${initech.id}/invoices`, { token: initech.owner })).body.items;
      expect(listed.map((i: { currency: string; totalCents: number; lines: unknown[] }) => [i.currency, i.totalCents, i.lines.length])).toEqual([
        ['EUR', prorated(90000), 1],
        ['USD', prorated(120000), 1],
      ]);

      const second = await app.post('/api/ops/billing/invoices/run', { period }, { token: c.superadmin });
      expect(second.body).toMatchObject({ period, created: 0 });
      expect(second.body.existing).toBeGreaterThanOrEqual(4);
      expect(await invoicesOf(initech.id)).toEqual(ours);
      expect(await app.running.dbService.db.select().from(invoiceLines).where(eq(invoiceLines.orgId, initech.id))).toHaveLength(2);
    });

    it("pages an org's invoices by (month, currency): one per page gives each invoice once, even inside one month", async () => {
      const seen: [string, string][] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `?limit=1&cursor=${encodeURIComponent(cursor)}` : '?limit=1';
        const page = await app.get(`/api/orgs/${initech.id}/invoices${query}`, { token: initech.owner });
        expect(page.status).toBe(200);
        expect(page.body.items.length).toBeLessThanOrEqual(1);
        seen.push(...page.body.items.map((i: { period: string; currency: string }) => [i.period, i.currency] as [string, string]));
        cursor = page.body.nextCursor;
      } while (cursor && seen.length < 10);
      const all = (await app.get(`/api/orgs/${initech.id}/invoices`, { token: initech.owner })).body.items.map((i: { period: string; currency: string }) => [i.period, i.currency]);
      expect(all.map((k: [string, string]) => k[1])).toEqual(['EUR', 'USD']);
      expect(seen).toEqual(all);

      for (const bad of ['2026-11', 'not-a-cursor', Buffer.from('["2026-11"]').toString('base64url')]) {
        const res = await app.get(`/api/orgs/${initech.id}/invoices?cursor=${bad}`, { token: initech.owner });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
      }
    });

    it('keeps payments and dunning per invoice, and the ops amounts per currency', async () => {
      const [eur, usd] = await invoicesOf(initech.id);
      const paid = await app.post(`/api/ops/billing/invoices/${eur!.id}/payments`, { outcome: 'paid' }, { token: c.superadmin });
      expect(paid.body).toEqual({ ok: true, duplicate: false });
      expect((await invoicesOf(initech.id)).map((i) => [i.currency, i.status])).toEqual([
        ['EUR', 'paid'],
        ['USD', 'open'],
      ]);
      const row = await opsRow(initech.id);
      expect(row).toMatchObject({ openInvoices: 1, currency: 'USD', outstandingCents: usd!.totalCents });
      expect(row.amounts).toEqual([
        { currency: 'USD', monthlyRunRateCents: 120000, outstandingCents: usd!.totalCents, openInvoices: 1 },
        { currency: 'EUR', monthlyRunRateCents: 90000, outstandingCents: 0, openInvoices: 0 },
      ]);
    });
  });

  describe('the ops payment states (GET /ops/billing/orgs)', () => {
    const ids = (body: { items: Array<{ orgId: string }> }) => body.items.map((o) => o.orgId);

    it('pages the activated orgs oldest first: one per page gives each org once, in the order of the whole list', async () => {
      const whole = await app.get('/api/ops/billing/orgs?limit=200', { token: c.superadmin });
      expect(whole.status).toBe(200);
      expect(whole.body.nextCursor).toBeNull();
      expect(ids(whole.body)).toEqual(expect.arrayContaining([c.acmeId, initech.id, vandelay.id]));
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `?limit=1&cursor=${encodeURIComponent(cursor)}` : '?limit=1';
        const page = await app.get(`/api/ops/billing/orgs${query}`, { token: c.am });
        expect(page.status).toBe(200);
        expect(page.body.items.length).toBeLessThanOrEqual(1);
        seen.push(...ids(page.body));
        cursor = page.body.nextCursor;
      } while (cursor && seen.length < 100);
      expect(seen).toEqual(ids(whole.body));
      expect((await app.get('/api/ops/billing/orgs?cursor=nope', { token: c.superadmin })).status).toBe(400);
    });

    it('keeps one payment state with ?payment= and one org with ?orgId=, on the server (every page is the filtered list)', async () => {
      // The state as dunning leaves it (the dunning path itself is billing.e2e's).
      const setState = (paymentState: 'ok' | 'past_due') => app.running.dbService.db.update(billingAccounts).set({ paymentState }).where(eq(billingAccounts.orgId, initech.id));
      expect((await app.get(`/api/orgs/${initech.id}/billing`, { token: initech.owner })).status).toBe(200); // makes its account
      await setState('past_due');
      try {
        const pastDue = await app.get('/api/ops/billing/orgs?payment=past_due&limit=1', { token: c.superadmin });
        expect(ids(pastDue.body)).toEqual([initech.id]);
        expect(pastDue.body.nextCursor).toBeNull();
        const ok = await app.get('/api/ops/billing/orgs?payment=ok&limit=200', { token: c.superadmin });
        expect(ids(ok.body)).toEqual(expect.arrayContaining([c.acmeId, vandelay.id]));
        expect(ids(ok.body)).not.toContain(initech.id);
        expect(ids((await app.get(`/api/ops/billing/orgs?orgId=${vandelay.id}`, { token: c.superadmin })).body)).toEqual([vandelay.id]);
        expect((await app.get(`/api/ops/billing/orgs?orgId=${vandelay.id}&payment=past_due`, { token: c.superadmin })).body.items).toEqual([]);
        expect((await app.get('/api/ops/billing/orgs?payment=late', { token: c.superadmin })).status).toBe(400);
      } finally {
        await setState('ok');
      }
    });
  });

  describe('provider webhook invoice ids (API-MAP: any non-empty string)', () => {
    it("settles the invoice a provider names by its own id (Stripe's in_...), and refuses an empty id", async () => {
      const [, usd] = await invoicesOf(initech.id);
      const providerId = 'in_1PXyzAbCdEfGhIjKlMnOpQr';
      // As a provider that issued our invoice under its own id would have it.
      await app.running.dbService.db
        .update(invoices)
        .set({ providerInvoiceId: providerId })
        .where(and(eq(invoices.orgId, initech.id), eq(invoices.id, usd!.id)));

      const failed = await webhook({ id: 'evt_rates_1', type: 'payment_failed', data: { orgId: initech.id, invoiceId: providerId, failureReason: 'card declined' } });
      expect(failed.status).toBe(200);
      expect(failed.body).toEqual({ ok: true, duplicate: false });
      expect((await invoicesOf(initech.id)).map((i) => [i.currency, i.status, i.failureReason])).toEqual([
        ['EUR', 'paid', null],
        ['USD', 'payment_failed', 'card declined'],
      ]);
      expect((await app.get(`/api/orgs/${initech.id}/billing`, { token: initech.owner })).body.dunning).toMatchObject({ paymentState: 'past_due' });

      const ok = await webhook({ id: 'evt_rates_2', type: 'payment_succeeded', data: { orgId: initech.id, invoiceId: providerId } });
      expect(ok.body).toEqual({ ok: true, duplicate: false });
      expect((await invoicesOf(initech.id)).map((i) => i.status)).toEqual(['paid', 'paid']);
      expect((await app.get(`/api/orgs/${initech.id}/billing`, { token: initech.owner })).body.dunning).toMatchObject({ paymentState: 'ok' });

      const empty = await webhook({ id: 'evt_rates_3', type: 'payment_failed', data: { orgId: initech.id, invoiceId: '' } });
      expect(empty.body).toMatchObject({ statusCode: 400, code: 'validation_failed' });
      expect(empty.body.details.map((d: { field: string }) => d.field)).toContain('data.invoiceId');
      expect((await invoicesOf(initech.id)).map((i) => i.status)).toEqual(['paid', 'paid']);
    });
  });
});
