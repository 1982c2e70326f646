import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import type { BilledSpecialist, InvoiceDto, OrgBillingDto, PaymentMethod, RecordPaymentMethodInput, SkippedInstance } from '../../contracts/billing.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { Clock } from '../../platform/clock/clock.js';
import { billingConfig, type BillingConfig } from './billing.config.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { decodeKeyCursor, encodeKeyCursor } from '../../platform/http/pagination.js';
import { logger } from '../../platform/observability/logger.js';
import { jobScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { OrgsService, type OrgRow } from '../orgs/index.js';
import { AssignmentsService, DEFAULT_CURRENCY, type AssignmentBillingSource } from '../specialists/index.js';
import { BillingRepository, type NewInvoiceLine } from './billing.repository.js';
import type { BillingAccountRow, BillingSubscriptionRow, InvoiceLineRow, InvoiceRow } from './billing.tables.js';
import { PAYMENT_PROVIDER, planFor, type PaymentProvider } from './payment-provider.js';
import { addDays, billingStartDay, dayOf, monthBounds, periodOf, prorateLine, prorateLines, rateOn, toCents } from './proration.js';

/** Days after issue an invoice is due. */
export const INVOICE_DUE_DAYS = 14;

/** An invoice list's cursor: the last invoice's (period, currency), unique per org. */
const InvoiceCursorSchema = z.tuple([z.string().regex(/^\d{4}-\d{2}$/), z.string().min(1).max(32)]);

/** What one OSA is billed from and until, with the rates of each day (spec 2.3 + history). */
interface BillableOsa {
  source: AssignmentBillingSource;
  startsOn: string | null;
  endsOn: string | null;
  rateOn: (day: string) => ReturnType<typeof rateOn>;
}

/**
 * The billing engine (spec 2.8), ours, in PostgreSQL: billing accounts made eagerly, one
 * subscription per OSA at the provider, one invoice per org and calendar month with one line per
 * Specialist instance, prorated by calendar day at the rate of each day. Nothing usage-based is
 * ever billed: lines come from assignments and rates only.
 */
@Injectable()
export class BillingService {
  constructor(
    private readonly repo: BillingRepository,
    private readonly orgs: OrgsService,
    private readonly assignments: AssignmentsService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    private readonly clock: Clock,
    @Inject(PAYMENT_PROVIDER) private readonly provider: PaymentProvider,
    @Inject(billingConfig.token) private readonly config: BillingConfig,
  ) {}

  /** The org's billing account, linked at the provider on first sight (spec 4.6: eagerly, by the sweep). */
  async ensureAccount(scope: OrgScope, org: Pick<OrgRow, 'id' | 'legalName' | 'billingEmail'>): Promise<BillingAccountRow> {
    const existing = await this.repo.findAccount(scope);
    if (existing?.provider === this.provider.name) return existing;
    const { customerId } = await this.provider.createCustomer(org);
    if (!existing) {
      await this.repo.insertAccount(scope, { provider: this.provider.name, providerCustomerId: customerId });
      return (await this.repo.findAccount(scope))!;
    }
    // BILLING_PROVIDER changed: the org is linked at the new provider, its dunning state kept, its
    // running OSA subscriptions forgotten so the sweep opens them there, and the payment method on
    // file forgotten (it was recorded at the old provider).
    return this.dbService.transaction(async () => {
      const running = (await this.repo.subscriptionsOf([scope])).map((s) => s.providerSubscriptionId);
      await this.repo.deleteRunningSubscriptions(scope, running);
      logger.info({ orgId: org.id, from: existing.provider, to: this.provider.name }, 'billing account moved to another payment provider');
      return (await this.repo.updateAccount(scope, {
        provider: this.provider.name,
        providerCustomerId: customerId,
        providerSubscriptionId: null,
        providerSubscriptionStatus: null,
        paymentMethod: null,
      }))!;
    });
  }

  /**
   * The periodic sweep: every activated org has its billing account, and every OSA its
   * subscription, with start and end kept in step with trials, start dates, rate changes and
   * unassignment. Sweeps of one instance run one after another (the scheduled one, an invoice
   * run's, a test's): two at once would both find an OSA without its item and both create it.
   * Across instances only the scheduler's leader sweeps, and the provider's idempotency keys make
   * a replayed create harmless.
   */
  syncAccountsAndSubscriptions(): Promise<{ accounts: number; subscriptions: number }> {
    const run = this.sweeping.then(() => this.sweepOnce());
    this.sweeping = run.catch(() => undefined);
    return run;
  }

  private sweeping: Promise<unknown> = Promise.resolve();

  private async sweepOnce(): Promise<{ accounts: number; subscriptions: number }> {
    const orgs = await this.orgs.activatedOrgs();
    const today = dayOf(this.clock.now());
    const [billables, existing] = await Promise.all([this.billables(orgs), this.repo.subscriptionsOf(orgs.map((o) => jobScope({ orgId: o.id })))]);
    const byAssignment = new Map(existing.map((s) => [s.assignmentId, s]));
    let subscriptions = 0;
    for (const org of orgs) {
      let account = await this.ensureAccount(jobScope({ orgId: org.id }), org);
      for (const b of billables.filter((x) => x.source.orgId === org.id && x.startsOn)) {
        account = await this.syncSubscription(account, b, byAssignment, billables, today);
        subscriptions++;
      }
    }
    return { accounts: orgs.length, subscriptions };
  }

  /**
   * One OSA's subscription at the provider: created, moved to the plan of today's rate, ended on
   * unassignment. Returns the account as it stands after (a first OSA may have opened the org's
   * subscription at the provider).
   */
  private async syncSubscription(account: BillingAccountRow, b: BillableOsa, byAssignment: Map<string, BillingSubscriptionRow>, billables: BillableOsa[], today: string): Promise<BillingAccountRow> {
    const orgId = account.orgId;
    const scope = jobScope(account);
    const sub = byAssignment.get(b.source.id);
    const startsOn = b.startsOn!;
    const rateDay = b.endsOn && b.endsOn <= today ? addDays(b.endsOn, -1) : today > startsOn ? today : startsOn;
    const rate = b.rateOn(rateDay);
    const monthlyRateCents = rate ? toCents(rate.amount) : null;
    const currency = rate?.currency ?? DEFAULT_CURRENCY;
    const plan = planFor(this.config.pricingStrategy, { specialistId: b.source.specialistId, monthlyRateCents, currency });
    const price = { unitAmountCents: monthlyRateCents ?? 0, currency };
    const orgSubscription = account.providerSubscriptionId ? { id: account.providerSubscriptionId, status: account.providerSubscriptionStatus } : null;
    if (!sub) {
      // Assigned and unassigned between two sweeps: the provider never saw it; its days are charged once.
      if (b.endsOn && b.endsOn <= today) return this.billOneOff(account, b, plan);
      // No payment method yet: the provider could not collect the first invoice (no subscription, no call).
      if (this.provider.subscribesWithPaymentMethodOnly && !account.paymentMethod) return account;
      // No rate (spec 2.3 resolved to null): billing skips the instance, nothing to subscribe to.
      if (!rate) return account;
      // One subscription per org holds one currency (Stripe): an OSA in another one is left to our invoice of its currency.
      const inUse = this.provider.singleCurrency ? this.currencyInUse(orgId, byAssignment, billables, today) : null;
      if (inUse && inUse !== currency) {
        logger.warn({ orgId, assignmentId: b.source.id, currency, subscriptionCurrency: inUse }, "an OSA in another currency than the org's provider subscription is not subscribed");
        return account;
      }
      const created = await this.provider.createSubscription({ orgId, customerId: account.providerCustomerId, orgSubscription, assignmentId: b.source.id, plan, price, startsOn });
      const row = await this.repo.insertSubscription(scope, {
        assignmentId: b.source.id,
        specialistId: b.source.specialistId,
        providerSubscriptionId: created.subscriptionId,
        plan,
        startsOn,
        endsOn: b.endsOn,
      });
      if (row) byAssignment.set(row.assignmentId, row);
      if (created.orgSubscriptionId === account.providerSubscriptionId) return account;
      return (await this.repo.updateAccount(scope, { providerSubscriptionId: created.orgSubscriptionId, providerSubscriptionStatus: null })) ?? account;
    }
    if (sub.plan === plan && sub.startsOn === startsOn && sub.endsOn === b.endsOn) return account;
    if (sub.plan !== plan && !b.endsOn) await this.provider.changePlan({ subscriptionId: sub.providerSubscriptionId, plan, price, from: today });
    let next = account;
    if (b.endsOn && sub.endsOn !== b.endsOn) {
      const lastOfOrg = ![...byAssignment.values()].some((s) => s.orgId === orgId && s.assignmentId !== sub.assignmentId && !s.endsOn);
      await this.provider.endSubscription({ subscriptionId: sub.providerSubscriptionId, endsOn: b.endsOn, orgSubscription, lastOfOrg });
      if (lastOfOrg && orgSubscription) next = (await this.repo.updateAccount(scope, { providerSubscriptionStatus: 'canceled' })) ?? account;
    }
    await this.repo.updateSubscription(scope, sub.id, { plan, startsOn, endsOn: b.endsOn });
    byAssignment.set(sub.assignmentId, { ...sub, plan, startsOn, endsOn: b.endsOn });
    return next;
  }

  /** The currency of the org's running provider subscription: today's rate of an OSA subscribed under it. */
  private currencyInUse(orgId: string, byAssignment: Map<string, BillingSubscriptionRow>, billables: BillableOsa[], today: string): string | null {
    for (const b of billables) {
      const sub = byAssignment.get(b.source.id);
      if (b.source.orgId !== orgId || !sub || sub.endsOn) continue;
      const rate = b.rateOn(today);
      if (rate) return rate.currency;
    }
    return null;
  }

  /**
   * An OSA that ended before any sweep gave it a subscription: what our engine bills for its days
   * (all months of `[startsOn, endsOn)`) is charged once at the provider, and the OSA's row records
   * it, so no sweep charges it again. Nothing owed (the same day), nothing charged.
   */
  private async billOneOff(account: BillingAccountRow, b: BillableOsa, plan: string): Promise<BillingAccountRow> {
    const startsOn = b.startsOn!;
    const endsOn = b.endsOn!;
    let amountCents = 0;
    let currency: string | null = null;
    for (let period = periodOf(startsOn); endsOn > monthBounds(period).first; period = periodOf(monthBounds(period).next)) {
      // One charge is in one currency: that of the OSA's first rated day (a currency change within minutes is not worth a second charge).
      const line = prorateLine({ period, startsOn, endsOn, rateOn: b.rateOn, currency: currency ?? undefined });
      amountCents += line.amountCents;
      currency ??= line.currency;
    }
    if (amountCents === 0) return account;
    const { id } = await this.provider.billOneOff({
      orgId: account.orgId,
      customerId: account.providerCustomerId,
      assignmentId: b.source.id,
      description: `${b.source.specialistName}, ${startsOn} to ${addDays(endsOn, -1)}`,
      amountCents,
      currency: currency ?? DEFAULT_CURRENCY,
      startsOn,
      endsOn,
    });
    await this.repo.insertSubscription(jobScope(account), { assignmentId: b.source.id, specialistId: b.source.specialistId, providerSubscriptionId: id, plan, startsOn, endsOn });
    return account;
  }

  /**
   * The provider reports the org's subscription (Stripe `customer.subscription.*`), once per event
   * id: its status is kept in step; when it has ended, the OSAs still running under it are
   * forgotten, so the next sweep opens a new subscription for them. False for a replay.
   */
  async providerSubscriptionChanged(
    event: { id: string; type: string },
    scope: OrgScope,
    subscription: { id: string; status: string; itemIds: string[]; ended: boolean; paymentMethodFailed: boolean },
  ): Promise<boolean> {
    return this.dbService.transaction(async () => {
      const orgId = scope.orgId;
      if (!(await this.repo.recordEvent(scope, event.id, event.type))) return false;
      const account = await this.repo.lockAccount(scope);
      // An older subscription of the org reporting late changes nothing.
      if (!account || (account.providerSubscriptionId && account.providerSubscriptionId !== subscription.id)) return true;
      // The card on file never paid the first invoice: the sweep waits for a new one instead of reopening daily.
      await this.repo.updateAccount(scope, {
        providerSubscriptionId: subscription.id,
        providerSubscriptionStatus: subscription.status,
        ...(subscription.paymentMethodFailed && { paymentMethod: null }),
      });
      if (subscription.ended) {
        const forgotten = await this.repo.deleteRunningSubscriptions(scope, subscription.itemIds);
        logger.warn({ orgId, subscriptionId: subscription.id, status: subscription.status, forgotten }, 'the provider ended the org subscription');
      }
      return true;
    });
  }

  /**
   * A provider's setup flow added a payment method (Stripe Checkout in setup mode), once per event
   * id: recorded as the one on file, as the manual setup page records it. False for a replay.
   */
  async providerPaymentMethodAdded(event: { id: string; type: string }, scope: OrgScope, method: RecordPaymentMethodInput, meta: Record<string, unknown>): Promise<boolean> {
    return this.dbService.transaction(async () => {
      if (!(await this.repo.recordEvent(scope, event.id, event.type))) return false;
      await this.savePaymentMethod(scope, method, undefined, meta);
      return true;
    });
  }

  /** The OSAs of these orgs as billing sees them. */
  private async billables(orgs: OrgRow[]): Promise<BillableOsa[]> {
    const byId = new Map(orgs.map((o) => [o.id, o]));
    const sources = await this.assignments.billingSources(orgs.map((o) => jobScope({ orgId: o.id })));
    return sources.map((source) => {
      const org = byId.get(source.orgId)!;
      const osaVersions = source.rateVersions.map((v) => ({ ...v, effectiveOn: dayOf(v.at) }));
      const catalogVersions = source.catalogVersions.map((v) => ({ ...v, effectiveOn: dayOf(v.at) }));
      return {
        source,
        startsOn: billingStartDay(
          { createdOn: dayOf(source.createdAt) },
          {
            activatedOn: org.activatedAt ? dayOf(org.activatedAt) : null,
            trialEndDate: org.trialEndDate,
            trialStarted: org.trialStartedAt !== null && org.trialMode === 'default',
            startDate: org.startDate,
          },
        ),
        endsOn: source.unassignedAt ? dayOf(source.unassignedAt) : null,
        rateOn: (day: string) => rateOn(day, osaVersions, catalogVersions),
      };
    });
  }

  /**
   * What these OSAs owe for a month: one line per OSA with billed days (per currency, should its
   * catalog have changed currency in the month), and the OSAs assigned in the month that no day
   * of it had a rate for: skipped, no line.
   */
  private linesFor(billables: BillableOsa[], period: string): { lines: NewInvoiceLine[]; skipped: SkippedInstance[] } {
    const lines: NewInvoiceLine[] = [];
    const skipped: SkippedInstance[] = [];
    for (const b of billables) {
      if (!b.startsOn) continue;
      const prorated = prorateLines({ period, startsOn: b.startsOn, endsOn: b.endsOn, rateOn: b.rateOn });
      if (prorated.lines.length === 0 && prorated.assignedDays > 0) skipped.push(skippedInstance(b.source));
      for (const line of prorated.lines) {
        lines.push({
          orgId: b.source.orgId,
          assignmentId: b.source.id,
          specialistId: b.source.specialistId,
          description: `${b.source.specialistName}, ${period}`,
          daysActive: line.daysActive,
          daysInMonth: line.daysInMonth,
          amountCents: line.amountCents,
          currency: line.currency!,
          periods: line.periods,
        });
      }
    }
    return { lines, skipped };
  }

  /**
   * The scheduled invoice run for a closed month: one invoice per org and currency with billed
   * lines, each totalling only its own currency's lines (docs/billing.md "Invoices"). Idempotent:
   * the (org, month, currency) key makes a second run find the invoice and add nothing. Instances
   * without a rate get no line and are reported as skipped.
   */
  async generateInvoices(period: string): Promise<{ period: string; created: number; existing: number; skipped: SkippedInstance[] }> {
    if (period >= periodOf(dayOf(this.clock.now()))) throw AppError.badRequest('Only a closed month can be invoiced');
    await this.syncAccountsAndSubscriptions();
    const orgs = await this.orgs.activatedOrgs();
    const billables = await this.billables(orgs);
    let created = 0;
    let existing = 0;
    const skipped: SkippedInstance[] = [];
    for (const org of orgs) {
      const scope = jobScope({ orgId: org.id });
      const owed = this.linesFor(
        billables.filter((b) => b.source.orgId === org.id),
        period,
      );
      skipped.push(...owed.skipped);
      for (const [currency, lines] of byCurrency(owed.lines)) {
        const invoice = await this.dbService.transaction(() => this.repo.insertInvoice(scope, this.invoiceValues(org.id, period, currency, lines), lines));
        if (!invoice) {
          existing++;
          continue;
        }
        created++;
        await this.issue(invoice);
        // The provider's invoices of this org, month and currency that came before ours settle it now.
        if ((await this.repo.linkProviderInvoices(scope, period, currency, invoice.id)).length > 0) await this.settleFromProvider(scope, invoice.id, null);
      }
    }
    if (created > 0) logger.info({ period, created, existing }, 'invoices generated');
    if (skipped.length > 0) logger.info({ period, skipped: skipped.map((x) => x.assignmentId) }, 'Specialist instances without a rate skipped');
    return { period, created, existing, skipped };
  }

  /**
   * Our invoice settled by the provider's invoices of its org and month (docs/billing.md "Our
   * invoices and Stripe's"): `payment_failed` while one of them is failed, `paid` once all are paid,
   * else `open`; it names the latest of them and keeps what they came to beside our total.
   */
  async settleFromProvider(scope: OrgScope, invoiceId: string, reason: string | null): Promise<void> {
    const [invoice, theirs] = await Promise.all([this.repo.findInvoice(scope, invoiceId), this.repo.providerInvoicesOf(scope, invoiceId)]);
    if (!invoice || theirs.length === 0) return;
    const status = theirs.some((p) => p.status === 'payment_failed') ? 'payment_failed' : theirs.every((p) => p.status === 'paid') ? 'paid' : 'open';
    const now = this.clock.now();
    const providerAmountCents = theirs.reduce((n, p) => n + p.totalCents, 0);
    if (providerAmountCents !== invoice.totalCents) {
      logger.info({ orgId: scope.orgId, invoiceId, totalCents: invoice.totalCents, providerAmountCents }, "the provider's invoices of the month differ from ours");
    }
    await this.repo.updateInvoice(scope, invoiceId, {
      status,
      providerInvoiceId: theirs.at(-1)!.providerInvoiceId,
      providerAmountCents,
      paidAt: status === 'paid' ? (invoice.paidAt ?? now) : null,
      ...(status === 'payment_failed' && { failedAt: invoice.status === 'payment_failed' ? invoice.failedAt : now, failureReason: reason ?? invoice.failureReason }),
    });
  }

  /** An invoice of one currency: `lines` are that currency's only. */
  private invoiceValues(orgId: string, period: string, currency: string, lines: NewInvoiceLine[]) {
    const now = this.clock.now();
    return {
      orgId,
      period,
      currency,
      totalCents: lines.reduce((n, l) => n + l.amountCents, 0),
      issuedAt: now,
      dueOn: addDays(dayOf(now), INVOICE_DUE_DAYS),
      status: 'open' as const,
    };
  }

  private async issue(invoice: InvoiceRow): Promise<void> {
    try {
      const account = await this.repo.findAccount(jobScope(invoice));
      const { providerInvoiceId } = await this.provider.issueInvoice({
        customerId: account!.providerCustomerId,
        invoiceId: invoice.id,
        totalCents: invoice.totalCents,
        currency: invoice.currency,
        dueOn: invoice.dueOn,
      });
      await this.repo.updateInvoice(jobScope(invoice), invoice.id, { providerInvoiceId });
    } catch (err) {
      // The invoice stands; issuing it at the provider is retried by hand (its id stays empty).
      logger.error({ err, invoiceId: invoice.id }, 'issuing the invoice at the provider failed');
    }
  }

  /** The upcoming invoices of the current month (one per currency), as if nothing changes until its end. */
  async preview(orgId: string): Promise<InvoiceDto[]> {
    return this.previewFrom(orgId, await this.billables([await this.requireOrg(orgId)]));
  }

  private previewFrom(orgId: string, billables: BillableOsa[]): InvoiceDto[] {
    const period = periodOf(dayOf(this.clock.now()));
    const { lines: all } = this.linesFor(billables, period);
    return [...byCurrency(all)].map(([currency, lines]) => this.previewOf(orgId, period, currency, lines));
  }

  private previewOf(orgId: string, period: string, currency: string, lines: NewInvoiceLine[]): InvoiceDto {
    const values = this.invoiceValues(orgId, period, currency, lines);
    return {
      id: null,
      orgId,
      period,
      currency,
      status: 'upcoming',
      totalCents: values.totalCents,
      providerInvoiceId: null,
      providerAmountCents: null,
      issuedAt: null,
      dueOn: addDays(monthBounds(period).next, INVOICE_DUE_DAYS),
      paidAt: null,
      failedAt: null,
      failureReason: null,
      lines: lines.map((l) => toLineDto(l)),
    };
  }

  /** `GET /orgs/:orgId/billing`. */
  async settings(scope: OrgScope): Promise<OrgBillingDto> {
    const orgId = scope.orgId;
    const org = await this.requireOrg(orgId);
    const account = await this.ensureAccount(scope, org);
    const billables = await this.billables([org]);
    const upcoming = this.previewFrom(orgId, billables);
    const today = dayOf(this.clock.now());
    const period = periodOf(today);
    return {
      orgId,
      orgStatus: org.status,
      billingEmail: org.billingEmail,
      provider: account.provider,
      paymentMethod: account.paymentMethod,
      dunning: dunningOf(account),
      upcomingInvoice: upcoming[0] ?? null,
      upcomingInvoices: upcoming,
      currentPeriod: { period, from: monthBounds(period).first, to: addDays(monthBounds(period).next, -1) },
      specialists: billables
        .filter((b) => b.endsOn === null || b.endsOn > today)
        .map((b) => billedSpecialist(b, today))
        .sort((a, b) => a.name.localeCompare(b.name)),
    };
  }

  async updateBillingEmail(actor: Principal, scope: OrgScope, billingEmail: string | null): Promise<OrgBillingDto> {
    const orgId = scope.orgId;
    const before = await this.requireOrg(orgId);
    await this.orgs.setBillingEmail(orgId, billingEmail?.toLowerCase() ?? null);
    await this.audit.record({
      action: 'billing.email_updated',
      userId: actor.userId,
      resourceId: orgId,
      orgId,
      impersonatorId: actor.impersonatorId,
      meta: { from: before.billingEmail, to: billingEmail },
    });
    return this.settings(scope);
  }

  /** `GET /client/billing/checkout-url`: the provider's setup-mode page for a payment method. */
  async checkoutUrl(scope: OrgScope): Promise<{ url: string; provider: string; mode: 'setup' }> {
    const account = await this.ensureAccount(scope, await this.requireOrg(scope.orgId));
    return { url: await this.provider.setupUrl({ customerId: account.providerCustomerId, orgId: scope.orgId }), provider: account.provider, mode: 'setup' };
  }

  /** The default provider's setup page records the method the client will pay with. */
  async recordPaymentMethod(actor: Principal, scope: OrgScope, input: RecordPaymentMethodInput): Promise<OrgBillingDto> {
    await this.ensureAccount(scope, await this.requireOrg(scope.orgId));
    await this.savePaymentMethod(scope, input, actor);
    return this.settings(scope);
  }

  /**
   * The payment method on file, as the manual setup page or a provider's setup flow (Stripe
   * Checkout) reports it; `actor` absent for a provider event. Audited `billing.payment_method_recorded`.
   */
  async savePaymentMethod(scope: OrgScope, input: RecordPaymentMethodInput, actor?: Principal, meta: Record<string, unknown> = {}): Promise<void> {
    const orgId = scope.orgId;
    const method: PaymentMethod = { kind: input.kind, label: input.label, addedAt: this.clock.now().toISOString() };
    await this.repo.updateAccount(scope, { paymentMethod: method });
    await this.audit.record({ action: 'billing.payment_method_recorded', userId: actor?.userId, resourceId: orgId, orgId, impersonatorId: actor?.impersonatorId, meta: { kind: input.kind, ...meta } });
  }

  /** An org's invoices, newest month first, with their lines. */
  async invoices(scope: OrgScope, page: { limit: number; cursor?: string }): Promise<{ items: InvoiceDto[]; nextCursor: string | null }> {
    await this.requireOrg(scope.orgId);
    const key = decodeKeyCursor(page.cursor, InvoiceCursorSchema);
    const rows = await this.repo.listInvoices(scope, { limit: page.limit, after: key && { period: key[0], currency: key[1] } });
    const pageRows = rows.slice(0, page.limit);
    const items = await this.withLines(scope, pageRows);
    const last = pageRows.at(-1);
    return { items, nextCursor: rows.length > page.limit && last ? encodeKeyCursor([last.period, last.currency]) : null };
  }

  async withLines(scope: OrgScope, rows: InvoiceRow[]): Promise<InvoiceDto[]> {
    const lines = await this.repo.linesOf(
      scope,
      rows.map((r) => r.id),
    );
    return rows.map((r) =>
      toInvoiceDto(
        r,
        lines.filter((l) => l.invoiceId === r.id),
      ),
    );
  }

  /**
   * Each org's current monthly fee per currency (the sum of today's rates of its assigned
   * Specialists), its assigned instances, and those of them billing skips (no rate today).
   */
  async runRates(orgs: OrgRow[]): Promise<Map<string, OrgRunRate>> {
    const today = dayOf(this.clock.now());
    const out = new Map<string, OrgRunRate>();
    for (const b of await this.billables(orgs)) {
      if (b.endsOn) continue;
      const rate = b.rateOn(today);
      const acc = out.get(b.source.orgId) ?? { byCurrency: new Map<string, number>(), instances: 0, skipped: [] };
      if (rate) acc.byCurrency.set(rate.currency, (acc.byCurrency.get(rate.currency) ?? 0) + toCents(rate.amount));
      else acc.skipped.push(skippedInstance(b.source));
      acc.instances++;
      out.set(b.source.orgId, acc);
    }
    return out;
  }

  private async requireOrg(orgId: string): Promise<OrgRow> {
    const org = await this.orgs.findById(orgId);
    if (!org) throw AppError.notFound('Organization');
    return org;
  }
}

export interface OrgRunRate {
  /** Monthly fee in cents per currency. */
  byCurrency: Map<string, number>;
  instances: number;
  skipped: SkippedInstance[];
}

/** What the org pays for one assigned Specialist today. */
function billedSpecialist(b: BillableOsa, today: string): BilledSpecialist {
  const rate = b.rateOn(today);
  return {
    assignmentId: b.source.id,
    specialistId: b.source.specialistId,
    name: b.source.specialistName,
    monthlyRateCents: rate ? toCents(rate.amount) : null,
    currency: rate?.currency ?? null,
    billedFrom: b.startsOn,
  };
}

function skippedInstance(source: AssignmentBillingSource): SkippedInstance {
  return { orgId: source.orgId, assignmentId: source.id, specialistId: source.specialistId, specialistName: source.specialistName, reason: 'no_rate' };
}

/** Lines grouped by currency, in the order the currencies first appear. */
function byCurrency(lines: NewInvoiceLine[]): Map<string, NewInvoiceLine[]> {
  const out = new Map<string, NewInvoiceLine[]>();
  for (const line of lines) out.set(line.currency, [...(out.get(line.currency) ?? []), line]);
  return out;
}

export function dunningOf(a: BillingAccountRow | undefined): OrgBillingDto['dunning'] {
  return {
    paymentState: a?.paymentState ?? 'ok',
    pastDueSince: a?.pastDueSince?.toISOString() ?? null,
    graceEndsAt: a?.graceEndsAt?.toISOString() ?? null,
    lastFailureReason: a?.lastFailureReason ?? null,
    suspendedAt: a?.suspendedAt?.toISOString() ?? null,
  };
}

function toLineDto(l: NewInvoiceLine | InvoiceLineRow) {
  return {
    assignmentId: l.assignmentId,
    specialistId: l.specialistId,
    description: l.description,
    daysActive: l.daysActive,
    daysInMonth: l.daysInMonth,
    amountCents: l.amountCents,
    currency: l.currency,
    periods: l.periods,
  };
}

export function toInvoiceDto(r: InvoiceRow, lines: InvoiceLineRow[]): InvoiceDto {
  return {
    id: r.id,
    orgId: r.orgId,
    period: r.period,
    currency: r.currency,
    status: r.status,
    totalCents: r.totalCents,
    providerInvoiceId: r.providerInvoiceId,
    providerAmountCents: r.providerAmountCents,
    issuedAt: r.issuedAt.toISOString(),
    dueOn: r.dueOn,
    paidAt: r.paidAt?.toISOString() ?? null,
    failedAt: r.failedAt?.toISOString() ?? null,
    failureReason: r.failureReason,
    lines: lines.map(toLineDto),
  };
}
