import { Inject, Injectable } from '@nestjs/common';
import type { InvoiceDto, OrgBillingDto, PaymentMethod, RecordPaymentMethodInput } from '../../contracts/billing.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { Clock } from '../../platform/clock/clock.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { logger } from '../../platform/observability/logger.js';
import { OrgsService, type OrgRow } from '../orgs/index.js';
import { AssignmentsService, type AssignmentBillingSource } from '../specialists/index.js';
import { BillingRepository, type NewInvoiceLine } from './billing.repository.js';
import type { BillingAccountRow, BillingSubscriptionRow, InvoiceLineRow, InvoiceRow } from './billing.tables.js';
import { PAYMENT_PROVIDER, planFor, type PaymentProvider } from './payment-provider.js';
import { addDays, billingStartDay, dayOf, monthBounds, periodOf, prorateLine, rateOn, toCents } from './proration.js';

/** Days after issue an invoice is due. */
export const INVOICE_DUE_DAYS = 14;

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
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The org's billing account, linked at the provider on first sight (spec 4.6: eagerly, by the sweep). */
  async ensureAccount(org: Pick<OrgRow, 'id' | 'legalName' | 'billingEmail'>): Promise<BillingAccountRow> {
    const existing = await this.repo.findAccount(org.id);
    if (existing?.provider === this.provider.name) return existing;
    const { customerId } = await this.provider.createCustomer(org);
    if (!existing) {
      await this.repo.insertAccount({ orgId: org.id, provider: this.provider.name, providerCustomerId: customerId });
      return (await this.repo.findAccount(org.id))!;
    }
    // BILLING_PROVIDER changed: the org is linked at the new provider, its dunning state kept, its
    // running OSA subscriptions forgotten so the sweep opens them there, and the payment method on
    // file forgotten (it was recorded at the old provider).
    return this.dbService.transaction(async () => {
      const running = (await this.repo.subscriptionsOf([org.id])).map((s) => s.providerSubscriptionId);
      await this.repo.deleteRunningSubscriptions(org.id, running);
      logger.info({ orgId: org.id, from: existing.provider, to: this.provider.name }, 'billing account moved to another payment provider');
      return (await this.repo.updateAccount(org.id, { provider: this.provider.name, providerCustomerId: customerId, providerSubscriptionId: null, providerSubscriptionStatus: null, paymentMethod: null }))!;
    });
  }

  /**
   * The periodic sweep: every activated org has its billing account, and every OSA its
   * subscription, with start and end kept in step with trials, start dates, rate changes and
   * unassignment.
   */
  async syncAccountsAndSubscriptions(): Promise<{ accounts: number; subscriptions: number }> {
    const orgs = await this.orgs.activatedOrgs();
    const today = dayOf(this.clock.now());
    const [billables, existing] = await Promise.all([this.billables(orgs), this.repo.subscriptionsOf(orgs.map((o) => o.id))]);
    const byAssignment = new Map(existing.map((s) => [s.assignmentId, s]));
    let subscriptions = 0;
    for (const org of orgs) {
      let account = await this.ensureAccount(org);
      for (const b of billables.filter((x) => x.source.orgId === org.id && x.startsOn)) {
        account = await this.syncSubscription(account, b, byAssignment, today);
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
  private async syncSubscription(account: BillingAccountRow, b: BillableOsa, byAssignment: Map<string, BillingSubscriptionRow>, today: string): Promise<BillingAccountRow> {
    const orgId = account.orgId;
    const sub = byAssignment.get(b.source.id);
    const startsOn = b.startsOn!;
    const rateDay = b.endsOn && b.endsOn <= today ? addDays(b.endsOn, -1) : today > startsOn ? today : startsOn;
    const rate = b.rateOn(rateDay);
    const monthlyRateCents = rate ? toCents(rate.amount) : null;
    const currency = rate?.currency ?? 'USD';
    const plan = planFor(this.config.billing.pricingStrategy, { specialistId: b.source.specialistId, monthlyRateCents, currency });
    const price = { unitAmountCents: monthlyRateCents ?? 0, currency };
    const orgSubscription = account.providerSubscriptionId ? { id: account.providerSubscriptionId, status: account.providerSubscriptionStatus } : null;
    if (!sub) {
      // Assigned and unassigned between two sweeps: the provider never saw it; its days are charged once.
      if (b.endsOn && b.endsOn <= today) return this.billOneOff(account, b, plan);
      // No payment method yet: the provider could not collect the first invoice (no subscription, no call).
      if (this.provider.subscribesWithPaymentMethodOnly && !account.paymentMethod) return account;
      const created = await this.provider.createSubscription({ orgId, customerId: account.providerCustomerId, orgSubscription, assignmentId: b.source.id, plan, price, startsOn });
      const row = await this.repo.insertSubscription({ orgId, assignmentId: b.source.id, specialistId: b.source.specialistId, providerSubscriptionId: created.subscriptionId, plan, startsOn, endsOn: b.endsOn });
      if (row) byAssignment.set(row.assignmentId, row);
      if (created.orgSubscriptionId === account.providerSubscriptionId) return account;
      return (await this.repo.updateAccount(orgId, { providerSubscriptionId: created.orgSubscriptionId, providerSubscriptionStatus: null })) ?? account;
    }
    if (sub.plan === plan && sub.startsOn === startsOn && sub.endsOn === b.endsOn) return account;
    if (sub.plan !== plan && !b.endsOn) await this.provider.changePlan({ subscriptionId: sub.providerSubscriptionId, plan, price, from: today });
    let next = account;
    if (b.endsOn && sub.endsOn !== b.endsOn) {
      const lastOfOrg = ![...byAssignment.values()].some((s) => s.orgId === orgId && s.assignmentId !== sub.assignmentId && !s.endsOn);
      await this.provider.endSubscription({ subscriptionId: sub.providerSubscriptionId, endsOn: b.endsOn, orgSubscription, lastOfOrg });
      if (lastOfOrg && orgSubscription) next = (await this.repo.updateAccount(orgId, { providerSubscriptionStatus: 'canceled' })) ?? account;
    }
    await this.repo.updateSubscription(orgId, sub.id, { plan, startsOn, endsOn: b.endsOn });
    byAssignment.set(sub.assignmentId, { ...sub, plan, startsOn, endsOn: b.endsOn });
    return next;
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
      const line = prorateLine({ period, startsOn, endsOn, rateOn: b.rateOn });
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
      currency: currency ?? 'USD',
      startsOn,
      endsOn,
    });
    await this.repo.insertSubscription({ orgId: account.orgId, assignmentId: b.source.id, specialistId: b.source.specialistId, providerSubscriptionId: id, plan, startsOn, endsOn });
    return account;
  }

  /**
   * The provider reports the org's subscription (Stripe `customer.subscription.*`), once per event
   * id: its status is kept in step; when it has ended, the OSAs still running under it are
   * forgotten, so the next sweep opens a new subscription for them. False for a replay.
   */
  async providerSubscriptionChanged(
    event: { id: string; type: string },
    orgId: string,
    subscription: { id: string; status: string; itemIds: string[]; ended: boolean; paymentMethodFailed: boolean },
  ): Promise<boolean> {
    return this.dbService.transaction(async () => {
      if (!(await this.repo.recordEvent(event.id, event.type, orgId))) return false;
      const account = await this.repo.lockAccount(orgId);
      // An older subscription of the org reporting late changes nothing.
      if (!account || (account.providerSubscriptionId && account.providerSubscriptionId !== subscription.id)) return true;
      // The card on file never paid the first invoice: the sweep waits for a new one instead of reopening daily.
      await this.repo.updateAccount(orgId, { providerSubscriptionId: subscription.id, providerSubscriptionStatus: subscription.status, ...(subscription.paymentMethodFailed && { paymentMethod: null }) });
      if (subscription.ended) {
        const forgotten = await this.repo.deleteRunningSubscriptions(orgId, subscription.itemIds);
        logger.warn({ orgId, subscriptionId: subscription.id, status: subscription.status, forgotten }, 'the provider ended the org subscription');
      }
      return true;
    });
  }

  /**
   * A provider's setup flow added a payment method (Stripe Checkout in setup mode), once per event
   * id: recorded as the one on file, as the manual setup page records it. False for a replay.
   */
  async providerPaymentMethodAdded(event: { id: string; type: string }, orgId: string, method: RecordPaymentMethodInput, meta: Record<string, unknown>): Promise<boolean> {
    return this.dbService.transaction(async () => {
      if (!(await this.repo.recordEvent(event.id, event.type, orgId))) return false;
      await this.savePaymentMethod(orgId, method, undefined, meta);
      return true;
    });
  }

  /** The OSAs of these orgs as billing sees them. */
  private async billables(orgs: OrgRow[]): Promise<BillableOsa[]> {
    const byId = new Map(orgs.map((o) => [o.id, o]));
    const sources = await this.assignments.billingSources(orgs.map((o) => o.id));
    return sources.map((source) => {
      const org = byId.get(source.orgId)!;
      const osaVersions = source.rateVersions.map((v) => ({ ...v, effectiveOn: dayOf(v.at) }));
      const catalogVersions = source.catalogVersions.map((v) => ({ ...v, effectiveOn: dayOf(v.at) }));
      return {
        source,
        startsOn: billingStartDay(
          { createdOn: dayOf(source.createdAt) },
          { activatedOn: org.activatedAt ? dayOf(org.activatedAt) : null, trialEndDate: org.trialEndDate, trialStarted: org.trialStartedAt !== null && org.trialMode === 'default', startDate: org.startDate },
        ),
        endsOn: source.unassignedAt ? dayOf(source.unassignedAt) : null,
        rateOn: (day: string) => rateOn(day, osaVersions, catalogVersions),
      };
    });
  }

  /** The lines one org owes for a month: one per OSA with billed days. */
  private linesFor(billables: BillableOsa[], period: string): NewInvoiceLine[] {
    const lines: NewInvoiceLine[] = [];
    for (const b of billables) {
      if (!b.startsOn) continue;
      const line = prorateLine({ period, startsOn: b.startsOn, endsOn: b.endsOn, rateOn: b.rateOn });
      if (line.daysActive === 0) continue;
      lines.push({
        orgId: b.source.orgId,
        assignmentId: b.source.id,
        specialistId: b.source.specialistId,
        description: `${b.source.specialistName}, ${period}`,
        daysActive: line.daysActive,
        daysInMonth: line.daysInMonth,
        amountCents: line.amountCents,
        currency: line.currency ?? 'USD',
        periods: line.periods,
      });
    }
    return lines;
  }

  /**
   * The scheduled invoice run for a closed month: one invoice per org with billed lines.
   * Idempotent: the (org, month) key makes a second run find the invoice and add nothing.
   */
  async generateInvoices(period: string): Promise<{ period: string; created: number; existing: number }> {
    if (period >= periodOf(dayOf(this.clock.now()))) throw AppError.badRequest('Only a closed month can be invoiced');
    await this.syncAccountsAndSubscriptions();
    const orgs = await this.orgs.activatedOrgs();
    const billables = await this.billables(orgs);
    let created = 0;
    let existing = 0;
    for (const org of orgs) {
      const lines = this.linesFor(billables.filter((b) => b.source.orgId === org.id), period);
      if (lines.length === 0) continue;
      const invoice = await this.dbService.transaction(() => this.repo.insertInvoice(this.invoiceValues(org.id, period, lines), lines));
      if (!invoice) {
        existing++;
        continue;
      }
      created++;
      await this.issue(invoice);
      // The provider's invoices of this org and month that came before ours settle it now.
      if ((await this.repo.linkProviderInvoices(org.id, period, invoice.id)).length > 0) await this.settleFromProvider(org.id, invoice.id, null);
    }
    if (created > 0) logger.info({ period, created, existing }, 'invoices generated');
    return { period, created, existing };
  }

  /**
   * Our invoice settled by the provider's invoices of its org and month (docs/billing.md "Our
   * invoices and Stripe's"): `payment_failed` while one of them is failed, `paid` once all are paid,
   * else `open`; it names the latest of them and keeps what they came to beside our total.
   */
  async settleFromProvider(orgId: string, invoiceId: string, reason: string | null): Promise<void> {
    const [invoice, theirs] = await Promise.all([this.repo.findInvoice(orgId, invoiceId), this.repo.providerInvoicesOf(orgId, invoiceId)]);
    if (!invoice || theirs.length === 0) return;
    const status = theirs.some((p) => p.status === 'payment_failed') ? 'payment_failed' : theirs.every((p) => p.status === 'paid') ? 'paid' : 'open';
    const now = this.clock.now();
    const providerAmountCents = theirs.reduce((n, p) => n + p.totalCents, 0);
    if (providerAmountCents !== invoice.totalCents) {
      logger.info({ orgId, invoiceId, totalCents: invoice.totalCents, providerAmountCents }, "the provider's invoices of the month differ from ours");
    }
    await this.repo.updateInvoice(orgId, invoiceId, {
      status,
      providerInvoiceId: theirs.at(-1)!.providerInvoiceId,
      providerAmountCents,
      paidAt: status === 'paid' ? (invoice.paidAt ?? now) : null,
      ...(status === 'payment_failed' && { failedAt: invoice.status === 'payment_failed' ? invoice.failedAt : now, failureReason: reason ?? invoice.failureReason }),
    });
  }

  private invoiceValues(orgId: string, period: string, lines: NewInvoiceLine[]) {
    const now = this.clock.now();
    return {
      orgId,
      period,
      currency: lines[0]!.currency,
      totalCents: lines.reduce((n, l) => n + l.amountCents, 0),
      issuedAt: now,
      dueOn: addDays(dayOf(now), INVOICE_DUE_DAYS),
      status: 'open' as const,
    };
  }

  private async issue(invoice: InvoiceRow): Promise<void> {
    try {
      const account = await this.repo.findAccount(invoice.orgId);
      const { providerInvoiceId } = await this.provider.issueInvoice({
        customerId: account!.providerCustomerId,
        invoiceId: invoice.id,
        totalCents: invoice.totalCents,
        currency: invoice.currency,
        dueOn: invoice.dueOn,
      });
      await this.repo.updateInvoice(invoice.orgId, invoice.id, { providerInvoiceId });
    } catch (err) {
      // The invoice stands; issuing it at the provider is retried by hand (its id stays empty).
      logger.error({ err, invoiceId: invoice.id }, 'issuing the invoice at the provider failed');
    }
  }

  /** The upcoming invoice of the current month, as if nothing changes until its end; null when nothing is billed. */
  async preview(orgId: string): Promise<InvoiceDto | null> {
    const org = await this.requireOrg(orgId);
    const period = periodOf(dayOf(this.clock.now()));
    const lines = this.linesFor(await this.billables([org]), period);
    if (lines.length === 0) return null;
    const values = this.invoiceValues(orgId, period, lines);
    return {
      id: null,
      orgId,
      period,
      currency: values.currency,
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
  async settings(orgId: string): Promise<OrgBillingDto> {
    const org = await this.requireOrg(orgId);
    const account = await this.ensureAccount(org);
    return {
      orgId,
      orgStatus: org.status,
      billingEmail: org.billingEmail,
      provider: account.provider,
      providerCustomerId: account.providerCustomerId,
      paymentMethod: account.paymentMethod,
      dunning: dunningOf(account),
      upcomingInvoice: await this.preview(orgId),
    };
  }

  async updateBillingEmail(actor: Principal, orgId: string, billingEmail: string | null): Promise<OrgBillingDto> {
    const before = await this.requireOrg(orgId);
    await this.orgs.setBillingEmail(orgId, billingEmail?.toLowerCase() ?? null);
    await this.audit.record({ action: 'billing.email_updated', userId: actor.userId, resourceId: orgId, orgId, impersonatorId: actor.impersonatorId, meta: { from: before.billingEmail, to: billingEmail } });
    return this.settings(orgId);
  }

  /** `GET /client/billing/checkout-url`: the provider's setup-mode page for a payment method. */
  async checkoutUrl(orgId: string): Promise<{ url: string; provider: string; mode: 'setup' }> {
    const account = await this.ensureAccount(await this.requireOrg(orgId));
    return { url: await this.provider.setupUrl({ customerId: account.providerCustomerId, orgId }), provider: account.provider, mode: 'setup' };
  }

  /** The default provider's setup page records the method the client will pay with. */
  async recordPaymentMethod(actor: Principal, orgId: string, input: RecordPaymentMethodInput): Promise<OrgBillingDto> {
    await this.ensureAccount(await this.requireOrg(orgId));
    await this.savePaymentMethod(orgId, input, actor);
    return this.settings(orgId);
  }

  /**
   * The payment method on file, as the manual setup page or a provider's setup flow (Stripe
   * Checkout) reports it; `actor` absent for a provider event. Audited `billing.payment_method_recorded`.
   */
  async savePaymentMethod(orgId: string, input: RecordPaymentMethodInput, actor?: Principal, meta: Record<string, unknown> = {}): Promise<void> {
    const method: PaymentMethod = { kind: input.kind, label: input.label, addedAt: this.clock.now().toISOString() };
    await this.repo.updateAccount(orgId, { paymentMethod: method });
    await this.audit.record({ action: 'billing.payment_method_recorded', userId: actor?.userId, resourceId: orgId, orgId, impersonatorId: actor?.impersonatorId, meta: { kind: input.kind, ...meta } });
  }

  /** An org's invoices, newest month first, with their lines. */
  async invoices(orgId: string, page: { limit: number; cursor?: string }): Promise<{ items: InvoiceDto[]; nextCursor: string | null }> {
    await this.requireOrg(orgId);
    const rows = await this.repo.listInvoices(orgId, { limit: page.limit, beforePeriod: page.cursor });
    const pageRows = rows.slice(0, page.limit);
    const items = await this.withLines(orgId, pageRows);
    return { items, nextCursor: rows.length > page.limit ? pageRows.at(-1)!.period : null };
  }

  async withLines(orgId: string, rows: InvoiceRow[]): Promise<InvoiceDto[]> {
    const lines = await this.repo.linesOf(orgId, rows.map((r) => r.id));
    return rows.map((r) => toInvoiceDto(r, lines.filter((l) => l.invoiceId === r.id)));
  }

  /** Each org's current monthly fee: the sum of today's rates of its assigned Specialists. */
  async runRates(orgs: OrgRow[]): Promise<Map<string, { cents: number; currency: string; instances: number }>> {
    const today = dayOf(this.clock.now());
    const out = new Map<string, { cents: number; currency: string; instances: number }>();
    for (const b of await this.billables(orgs)) {
      if (b.endsOn) continue;
      const rate = b.rateOn(today);
      const acc = out.get(b.source.orgId) ?? { cents: 0, currency: rate?.currency ?? 'USD', instances: 0 };
      acc.cents += rate ? toCents(rate.amount) : 0;
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
