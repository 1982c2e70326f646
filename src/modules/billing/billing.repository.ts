import { Injectable } from '@nestjs/common';
import { and, asc, desc, eq, gt, gte, inArray, isNull, lt, lte, max, or, sql, type SQL } from 'drizzle-orm';
import type { PaymentState } from '../../contracts/billing.js';
import { systemNow } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { anyUuid } from '../../platform/db/query-parts.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import {
  billingAccounts,
  billingSubscriptions,
  billingWebhookEvents,
  costReconciliations,
  invoiceLines,
  invoices,
  llmCostDaily,
  llmCostRollupDays,
  providerInvoices,
  type BillingAccountRow,
  type BillingSubscriptionRow,
  type CostReconciliationRow,
  type InvoiceLineRow,
  type InvoiceRow,
  type ProviderInvoiceRow,
} from './billing.tables.js';

export type NewInvoice = typeof invoices.$inferInsert;
export type NewInvoiceLine = Omit<typeof invoiceLines.$inferInsert, 'invoiceId'>;
export type NewProviderInvoice = Pick<typeof providerInvoices.$inferInsert, 'providerInvoiceId' | 'provider' | 'period' | 'totalCents' | 'amountRemainingCents' | 'currency'>;
export type CostRollupRow = typeof llmCostDaily.$inferInsert;

const costTotals = {
  costMicroUsd: sql<number>`coalesce(sum(${llmCostDaily.costMicroUsd}), 0)::bigint`.mapWith(Number),
  calls: sql<number>`coalesce(sum(${llmCostDaily.calls}), 0)::int`.mapWith(Number),
  inputTokens: sql<number>`coalesce(sum(${llmCostDaily.inputTokens}), 0)::bigint`.mapWith(Number),
  outputTokens: sql<number>`coalesce(sum(${llmCostDaily.outputTokens}), 0)::bigint`.mapWith(Number),
};
/** pg_advisory_xact_lock key: one rollup write at a time. */
const COST_ROLLUP_LOCK = 7_410_231;
export type CostGroup = 'day' | 'org' | 'osa' | 'purpose';
const groupColumn = { day: llmCostDaily.day, org: llmCostDaily.orgId, osa: llmCostDaily.osaId, purpose: llmCostDaily.purpose } as const;

/** Billing queries. Tenant rows are read by org first. */
@Injectable()
export class BillingRepository {
  constructor(private readonly dbService: DbService) {}

  private get db() {
    return this.dbService.db;
  }

  // Accounts and dunning

  async findAccount(scope: OrgScope): Promise<BillingAccountRow | undefined> {
    const [row] = await this.db.select().from(billingAccounts).where(inOrg(billingAccounts.orgId, scope));
    return row;
  }

  async lockAccount(scope: OrgScope): Promise<BillingAccountRow | undefined> {
    const [row] = await this.db.select().from(billingAccounts).where(inOrg(billingAccounts.orgId, scope)).for('update');
    return row;
  }

  /** The account a provider's customer id belongs to, in any org (a provider event names the customer, not the org). */
  async unscopedFindAccountByCustomer(provider: string, providerCustomerId: string): Promise<BillingAccountRow | undefined> {
    const [row] = await this.db
      .select()
      .from(billingAccounts)
      .where(and(eq(billingAccounts.provider, provider), eq(billingAccounts.providerCustomerId, providerCustomerId)));
    return row;
  }

  /** These orgs' accounts: the platform-wide payment overview, a page of orgs at a time. */
  async unscopedAccounts(orgIds: readonly string[]): Promise<BillingAccountRow[]> {
    if (orgIds.length === 0) return [];
    return this.db.select().from(billingAccounts).where(anyUuid(billingAccounts.orgId, orgIds));
  }

  /** The orgs whose account is in one of these payment states (an org without an account is `ok`). */
  async unscopedOrgIdsInPaymentState(states: readonly PaymentState[]): Promise<string[]> {
    const rows = await this.db
      .select({ orgId: billingAccounts.orgId })
      .from(billingAccounts)
      .where(inArray(billingAccounts.paymentState, [...states]));
    return rows.map((r) => r.orgId);
  }

  /** Inserts the account unless the org has one already (two creators race to one row). */
  async insertAccount(scope: OrgScope, values: Omit<typeof billingAccounts.$inferInsert, 'orgId'>): Promise<void> {
    await this.db
      .insert(billingAccounts)
      .values({ ...values, orgId: scope.orgId })
      .onConflictDoNothing();
  }

  async updateAccount(scope: OrgScope, values: Partial<typeof billingAccounts.$inferInsert>): Promise<BillingAccountRow | undefined> {
    const [row] = await this.db
      .update(billingAccounts)
      .set({ ...values, updatedAt: systemNow() })
      .where(inOrg(billingAccounts.orgId, scope))
      .returning();
    return row;
  }

  /** Past-due accounts of every org whose grace period ended by `now` (the access-gate sweep; index billing_accounts_grace_idx). */
  async unscopedGraceElapsed(now: Date): Promise<BillingAccountRow[]> {
    return this.db
      .select()
      .from(billingAccounts)
      .where(and(eq(billingAccounts.paymentState, 'past_due'), lte(billingAccounts.graceEndsAt, now)));
  }

  /** Records a webhook event id of the org of the scope; false when it was seen before. */
  async recordEvent(scope: OrgScope, eventId: string, type: string): Promise<boolean> {
    const rows = await this.db.insert(billingWebhookEvents).values({ eventId, type, orgId: scope.orgId }).onConflictDoNothing().returning({ eventId: billingWebhookEvents.eventId });
    return rows.length > 0;
  }

  /** Whether a provider event id was recorded, in any org: checked before the event's customer is resolved. */
  async unscopedEventSeen(eventId: string): Promise<boolean> {
    const [row] = await this.db.select({ eventId: billingWebhookEvents.eventId }).from(billingWebhookEvents).where(eq(billingWebhookEvents.eventId, eventId));
    return row !== undefined;
  }

  // Subscriptions

  /** The subscriptions of these orgs (the sweep reads all its orgs at once). */
  async subscriptionsOf(scopes: readonly OrgScope[]): Promise<BillingSubscriptionRow[]> {
    if (scopes.length === 0) return [];
    return this.db
      .select()
      .from(billingSubscriptions)
      .where(or(...scopes.map((scope) => inOrg(billingSubscriptions.orgId, scope))));
  }

  /** Undefined when the OSA has its subscription already (two sweeps raced). */
  async insertSubscription(scope: OrgScope, values: Omit<typeof billingSubscriptions.$inferInsert, 'orgId'>): Promise<BillingSubscriptionRow | undefined> {
    const [row] = await this.db
      .insert(billingSubscriptions)
      .values({ ...values, orgId: scope.orgId })
      .onConflictDoNothing()
      .returning();
    return row;
  }

  /** Forgets the OSA subscriptions still running under these provider ids (the provider ended them): the sweep makes them again. */
  async deleteRunningSubscriptions(scope: OrgScope, providerSubscriptionIds: string[]): Promise<number> {
    if (providerSubscriptionIds.length === 0) return 0;
    const rows = await this.db
      .delete(billingSubscriptions)
      .where(and(inOrg(billingSubscriptions.orgId, scope), inArray(billingSubscriptions.providerSubscriptionId, providerSubscriptionIds), isNull(billingSubscriptions.endsOn)))
      .returning({ id: billingSubscriptions.id });
    return rows.length;
  }

  async updateSubscription(scope: OrgScope, id: string, values: Partial<typeof billingSubscriptions.$inferInsert>): Promise<void> {
    await this.db
      .update(billingSubscriptions)
      .set({ ...values, updatedAt: systemNow() })
      .where(and(inOrg(billingSubscriptions.orgId, scope), eq(billingSubscriptions.id, id)));
  }

  // Invoices

  /** One invoice per org, month and currency: null when the org already has this month's invoice in that currency. */
  async insertInvoice(scope: OrgScope, values: Omit<NewInvoice, 'orgId'>, lines: Array<Omit<NewInvoiceLine, 'orgId'>>): Promise<InvoiceRow | null> {
    const [row] = await this.db
      .insert(invoices)
      .values({ ...values, orgId: scope.orgId })
      .onConflictDoNothing({ target: [invoices.orgId, invoices.period, invoices.currency] })
      .returning();
    if (!row) return null;
    if (lines.length > 0) await this.db.insert(invoiceLines).values(lines.map((l) => ({ ...l, orgId: scope.orgId, invoiceId: row.id })));
    return row;
  }

  async findInvoice(scope: OrgScope, id: string): Promise<InvoiceRow | undefined> {
    const [row] = await this.db
      .select()
      .from(invoices)
      .where(and(inOrg(invoices.orgId, scope), eq(invoices.id, id)));
    return row;
  }

  /** An invoice by id alone, in any org (a superadmin recording a payment names only the invoice). */
  async unscopedFindInvoiceById(id: string): Promise<InvoiceRow | undefined> {
    const [row] = await this.db.select().from(invoices).where(eq(invoices.id, id));
    return row;
  }

  /**
   * The invoice a provider event names: its own id (`providerInvoiceId`, any string) or ours (compared
   * as text, so a foreign id never fails a uuid cast).
   */
  async updateInvoiceByRef(scope: OrgScope, ref: string, values: Partial<NewInvoice>): Promise<InvoiceRow | undefined> {
    const [row] = await this.db
      .update(invoices)
      .set(values)
      .where(and(inOrg(invoices.orgId, scope), or(eq(invoices.providerInvoiceId, ref), sql`${invoices.id}::text = ${ref}`)))
      .returning();
    return row;
  }

  async updateInvoice(scope: OrgScope, id: string, values: Partial<NewInvoice>): Promise<InvoiceRow | undefined> {
    const [row] = await this.db
      .update(invoices)
      .set(values)
      .where(and(inOrg(invoices.orgId, scope), eq(invoices.id, id)))
      .returning();
    return row;
  }

  /**
   * Newest period first, its currencies in order; limit + 1 rows after the keyset (period,
   * currency), which is unique per org: a page may end inside a month.
   */
  async listInvoices(scope: OrgScope, page: { limit: number; after?: { period: string; currency: string } }): Promise<InvoiceRow[]> {
    const after = page.after;
    return this.db
      .select()
      .from(invoices)
      .where(and(inOrg(invoices.orgId, scope), after ? or(lt(invoices.period, after.period), and(eq(invoices.period, after.period), gt(invoices.currency, after.currency))) : undefined))
      .orderBy(desc(invoices.period), asc(invoices.currency))
      .limit(page.limit + 1);
  }

  async linesOf(scope: OrgScope, invoiceIds: string[]): Promise<InvoiceLineRow[]> {
    if (invoiceIds.length === 0) return [];
    return this.db
      .select()
      .from(invoiceLines)
      .where(and(inOrg(invoiceLines.orgId, scope), inArray(invoiceLines.invoiceId, invoiceIds)))
      .orderBy(asc(invoiceLines.description), asc(invoiceLines.id));
  }

  /**
   * Per org and currency: what is not collected yet, and by how many invoices. The provider's
   * unpaid invoices count with what remains on them; our own unpaid invoices count with their
   * total unless a provider invoice settles them (then the provider's count, not ours: nothing twice).
   */
  async unscopedOutstandingByOrg(orgIds: readonly string[]): Promise<Array<{ orgId: string; currency: string; openInvoices: number; outstandingCents: number }>> {
    if (orgIds.length === 0) return [];
    const unpaid = ['open', 'payment_failed'] as const;
    const [ours, theirs] = await Promise.all([
      this.db
        .select({
          orgId: invoices.orgId,
          currency: invoices.currency,
          count: sql<number>`count(*)::int`.mapWith(Number),
          cents: sql<number>`coalesce(sum(${invoices.totalCents}), 0)::bigint`.mapWith(Number),
        })
        .from(invoices)
        .where(and(anyUuid(invoices.orgId, orgIds), inArray(invoices.status, unpaid), sql`not exists (select 1 from ${providerInvoices} where ${providerInvoices.invoiceId} = ${invoices.id})`))
        .groupBy(invoices.orgId, invoices.currency),
      this.db
        .select({
          orgId: providerInvoices.orgId,
          currency: providerInvoices.currency,
          count: sql<number>`count(*)::int`.mapWith(Number),
          cents: sql<number>`coalesce(sum(${providerInvoices.amountRemainingCents}), 0)::bigint`.mapWith(Number),
        })
        .from(providerInvoices)
        .where(and(anyUuid(providerInvoices.orgId, orgIds), inArray(providerInvoices.status, unpaid)))
        .groupBy(providerInvoices.orgId, providerInvoices.currency),
    ]);
    const byKey = new Map<string, { orgId: string; currency: string; openInvoices: number; outstandingCents: number }>();
    for (const r of [...ours, ...theirs]) {
      const key = `${r.orgId}:${r.currency}`;
      const acc = byKey.get(key) ?? { orgId: r.orgId, currency: r.currency, openInvoices: 0, outstandingCents: 0 };
      acc.openInvoices += r.count;
      acc.outstandingCents += r.cents;
      byKey.set(key, acc);
    }
    return [...byKey.values()];
  }

  // The provider's own invoices

  /**
   * Records a provider invoice as its event shows it (amounts, month; not its status, which only
   * the dunning path moves), linked to our invoice of the same org, month and currency when that exists.
   */
  async upsertProviderInvoice(scope: OrgScope, values: NewProviderInvoice): Promise<ProviderInvoiceRow> {
    const ours = await this.findInvoiceOf(scope, values.period, values.currency);
    const set = {
      period: values.period,
      totalCents: values.totalCents,
      amountRemainingCents: values.amountRemainingCents,
      currency: values.currency,
      invoiceId: ours?.id ?? null,
      updatedAt: systemNow(),
    };
    const [row] = await this.db
      .insert(providerInvoices)
      .values({ ...values, orgId: scope.orgId, invoiceId: ours?.id ?? null })
      .onConflictDoUpdate({ target: providerInvoices.providerInvoiceId, set })
      .returning();
    return row!;
  }

  /** The org's provider invoice, locked for the dunning transaction. */
  async lockProviderInvoice(scope: OrgScope, providerInvoiceId: string): Promise<ProviderInvoiceRow | undefined> {
    const [row] = await this.db
      .select()
      .from(providerInvoices)
      .where(and(inOrg(providerInvoices.orgId, scope), eq(providerInvoices.providerInvoiceId, providerInvoiceId)))
      .for('update');
    return row;
  }

  async updateProviderInvoice(scope: OrgScope, providerInvoiceId: string, values: Partial<Pick<ProviderInvoiceRow, 'status' | 'amountRemainingCents'>>): Promise<void> {
    await this.db
      .update(providerInvoices)
      .set({ ...values, updatedAt: systemNow() })
      .where(and(inOrg(providerInvoices.orgId, scope), eq(providerInvoices.providerInvoiceId, providerInvoiceId)));
  }

  /** Links the provider invoices of an org, month and currency to our invoice of them (made after them). */
  async linkProviderInvoices(scope: OrgScope, period: string, currency: string, invoiceId: string): Promise<ProviderInvoiceRow[]> {
    return this.db
      .update(providerInvoices)
      .set({ invoiceId, updatedAt: systemNow() })
      .where(and(inOrg(providerInvoices.orgId, scope), eq(providerInvoices.period, period), eq(providerInvoices.currency, currency)))
      .returning();
  }

  async providerInvoicesOf(scope: OrgScope, invoiceId: string): Promise<ProviderInvoiceRow[]> {
    return this.db
      .select()
      .from(providerInvoices)
      .where(and(inOrg(providerInvoices.orgId, scope), eq(providerInvoices.invoiceId, invoiceId)))
      .orderBy(asc(providerInvoices.createdAt), asc(providerInvoices.providerInvoiceId));
  }

  async findInvoiceOf(scope: OrgScope, period: string, currency: string): Promise<InvoiceRow | undefined> {
    const [row] = await this.db
      .select()
      .from(invoices)
      .where(and(inOrg(invoices.orgId, scope), eq(invoices.period, period), eq(invoices.currency, currency)));
    return row;
  }

  // LLM cost rollups

  async lastRolledDay(): Promise<string | null> {
    const [row] = await this.db.select({ day: max(llmCostRollupDays.day) }).from(llmCostRollupDays);
    return row?.day ?? null;
  }

  /**
   * Replaces one day's rollup of every org (idempotent) and marks the day rolled, in one transaction under a
   * lock: the scheduled rollup and an explicit one may roll the same day at once, and two
   * delete-then-insert runs interleaved would keep both inserts (the day counted twice).
   */
  async unscopedReplaceRollupDay(day: string, rows: CostRollupRow[]): Promise<void> {
    await this.dbService.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${COST_ROLLUP_LOCK})`);
      await this.db.delete(llmCostDaily).where(eq(llmCostDaily.day, day));
      if (rows.length > 0) await this.db.insert(llmCostDaily).values(rows);
      await this.db
        .insert(llmCostRollupDays)
        .values({ day })
        .onConflictDoUpdate({ target: llmCostRollupDays.day, set: { rolledAt: systemNow() } });
    });
  }

  /** One org's rollup totals for days in [from, to] (inclusive), grouped by one dimension. */
  costsBy(scope: OrgScope, group: CostGroup, range: { from: string; to: string }) {
    return this.rollupTotals(group, range, inOrg(llmCostDaily.orgId, scope));
  }

  /** Every org's rollup totals for days in [from, to] (inclusive): the platform cost panel. */
  unscopedCostsBy(group: CostGroup, range: { from: string; to: string }) {
    return this.rollupTotals(group, range);
  }

  private rollupTotals(group: CostGroup, range: { from: string; to: string }, inScope?: SQL) {
    const key = groupColumn[group];
    return this.db
      .select({ key: sql<string | null>`${key}::text`, ...costTotals })
      .from(llmCostDaily)
      .where(and(gte(llmCostDaily.day, range.from), lte(llmCostDaily.day, range.to), inScope))
      .groupBy(key);
  }

  // Reconciliation

  async latestReconciliation(): Promise<CostReconciliationRow | undefined> {
    const [row] = await this.db.select().from(costReconciliations).orderBy(desc(costReconciliations.day)).limit(1);
    return row;
  }

  async findReconciliation(day: string): Promise<CostReconciliationRow | undefined> {
    const [row] = await this.db.select().from(costReconciliations).where(eq(costReconciliations.day, day));
    return row;
  }

  async saveReconciliation(values: typeof costReconciliations.$inferInsert): Promise<void> {
    await this.db
      .insert(costReconciliations)
      .values(values)
      .onConflictDoUpdate({ target: costReconciliations.day, set: { ...values, checkedAt: systemNow() } });
  }
}
