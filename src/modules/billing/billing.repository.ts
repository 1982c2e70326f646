import { Injectable } from '@nestjs/common';
import { and, asc, desc, eq, gte, inArray, isNull, lt, lte, max, or, sql } from 'drizzle-orm';
import { DbService } from '../../platform/db/db.service.js';
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
export type NewProviderInvoice = Pick<typeof providerInvoices.$inferInsert, 'providerInvoiceId' | 'orgId' | 'provider' | 'period' | 'totalCents' | 'amountRemainingCents' | 'currency'>;
export type CostRollupRow = typeof llmCostDaily.$inferInsert;

const costTotals = {
  costMicroUsd: sql<number>`coalesce(sum(${llmCostDaily.costMicroUsd}), 0)::bigint`.mapWith(Number),
  calls: sql<number>`coalesce(sum(${llmCostDaily.calls}), 0)::int`.mapWith(Number),
  inputTokens: sql<number>`coalesce(sum(${llmCostDaily.inputTokens}), 0)::bigint`.mapWith(Number),
  outputTokens: sql<number>`coalesce(sum(${llmCostDaily.outputTokens}), 0)::bigint`.mapWith(Number),
};
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

  async findAccount(orgId: string): Promise<BillingAccountRow | undefined> {
    const [row] = await this.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, orgId));
    return row;
  }

  async lockAccount(orgId: string): Promise<BillingAccountRow | undefined> {
    const [row] = await this.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, orgId)).for('update');
    return row;
  }

  /** The account a provider's customer id belongs to (a provider event names the customer, not the org). */
  async findAccountByCustomer(provider: string, providerCustomerId: string): Promise<BillingAccountRow | undefined> {
    const [row] = await this.db
      .select()
      .from(billingAccounts)
      .where(and(eq(billingAccounts.provider, provider), eq(billingAccounts.providerCustomerId, providerCustomerId)));
    return row;
  }

  async accounts(): Promise<BillingAccountRow[]> {
    return this.db.select().from(billingAccounts);
  }

  /** Inserts the account unless the org has one already (two creators race to one row). */
  async insertAccount(values: typeof billingAccounts.$inferInsert): Promise<void> {
    await this.db.insert(billingAccounts).values(values).onConflictDoNothing();
  }

  async updateAccount(orgId: string, values: Partial<typeof billingAccounts.$inferInsert>): Promise<BillingAccountRow | undefined> {
    const [row] = await this.db
      .update(billingAccounts)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(billingAccounts.orgId, orgId))
      .returning();
    return row;
  }

  /** Past-due accounts whose grace period ended by `now` (index billing_accounts_grace_idx). */
  async graceElapsed(now: Date): Promise<BillingAccountRow[]> {
    return this.db
      .select()
      .from(billingAccounts)
      .where(and(eq(billingAccounts.paymentState, 'past_due'), lte(billingAccounts.graceEndsAt, now)));
  }

  /** Records a webhook event id; false when it was seen before. */
  async recordEvent(eventId: string, type: string, orgId: string): Promise<boolean> {
    const rows = await this.db.insert(billingWebhookEvents).values({ eventId, type, orgId }).onConflictDoNothing().returning({ eventId: billingWebhookEvents.eventId });
    return rows.length > 0;
  }

  async eventSeen(eventId: string): Promise<boolean> {
    const [row] = await this.db.select({ eventId: billingWebhookEvents.eventId }).from(billingWebhookEvents).where(eq(billingWebhookEvents.eventId, eventId));
    return row !== undefined;
  }

  // Subscriptions

  async subscriptionsOf(orgIds: string[]): Promise<BillingSubscriptionRow[]> {
    if (orgIds.length === 0) return [];
    return this.db.select().from(billingSubscriptions).where(inArray(billingSubscriptions.orgId, orgIds));
  }

  /** Undefined when the OSA has its subscription already (two sweeps raced). */
  async insertSubscription(values: typeof billingSubscriptions.$inferInsert): Promise<BillingSubscriptionRow | undefined> {
    const [row] = await this.db.insert(billingSubscriptions).values(values).onConflictDoNothing().returning();
    return row;
  }

  /** Forgets the OSA subscriptions still running under these provider ids (the provider ended them): the sweep makes them again. */
  async deleteRunningSubscriptions(orgId: string, providerSubscriptionIds: string[]): Promise<number> {
    if (providerSubscriptionIds.length === 0) return 0;
    const rows = await this.db
      .delete(billingSubscriptions)
      .where(and(eq(billingSubscriptions.orgId, orgId), inArray(billingSubscriptions.providerSubscriptionId, providerSubscriptionIds), isNull(billingSubscriptions.endsOn)))
      .returning({ id: billingSubscriptions.id });
    return rows.length;
  }

  async updateSubscription(orgId: string, id: string, values: Partial<typeof billingSubscriptions.$inferInsert>): Promise<void> {
    await this.db
      .update(billingSubscriptions)
      .set({ ...values, updatedAt: new Date() })
      .where(and(eq(billingSubscriptions.orgId, orgId), eq(billingSubscriptions.id, id)));
  }

  // Invoices

  /** One invoice per org and month: null when the org already has this month's invoice. */
  async insertInvoice(values: NewInvoice, lines: NewInvoiceLine[]): Promise<InvoiceRow | null> {
    const [row] = await this.db.insert(invoices).values(values).onConflictDoNothing({ target: [invoices.orgId, invoices.period] }).returning();
    if (!row) return null;
    if (lines.length > 0) await this.db.insert(invoiceLines).values(lines.map((l) => ({ ...l, invoiceId: row.id })));
    return row;
  }

  async findInvoice(orgId: string, id: string): Promise<InvoiceRow | undefined> {
    const [row] = await this.db.select().from(invoices).where(and(eq(invoices.orgId, orgId), eq(invoices.id, id)));
    return row;
  }

  /** An invoice by id alone (a superadmin recording a payment names only the invoice). */
  async findInvoiceById(id: string): Promise<InvoiceRow | undefined> {
    const [row] = await this.db.select().from(invoices).where(eq(invoices.id, id));
    return row;
  }

  /**
   * The invoice a provider event names: its own id (`providerInvoiceId`, any string) or ours (compared
   * as text, so a foreign id never fails a uuid cast).
   */
  async updateInvoiceByRef(orgId: string, ref: string, values: Partial<NewInvoice>): Promise<InvoiceRow | undefined> {
    const [row] = await this.db
      .update(invoices)
      .set(values)
      .where(and(eq(invoices.orgId, orgId), or(eq(invoices.providerInvoiceId, ref), sql`${invoices.id}::text = ${ref}`)))
      .returning();
    return row;
  }

  async updateInvoice(orgId: string, id: string, values: Partial<NewInvoice>): Promise<InvoiceRow | undefined> {
    const [row] = await this.db
      .update(invoices)
      .set(values)
      .where(and(eq(invoices.orgId, orgId), eq(invoices.id, id)))
      .returning();
    return row;
  }

  /** Newest period first; limit + 1 rows, keyset on the period. */
  async listInvoices(orgId: string, page: { limit: number; beforePeriod?: string }): Promise<InvoiceRow[]> {
    return this.db
      .select()
      .from(invoices)
      .where(and(eq(invoices.orgId, orgId), page.beforePeriod ? lt(invoices.period, page.beforePeriod) : undefined))
      .orderBy(desc(invoices.period))
      .limit(page.limit + 1);
  }

  async linesOf(orgId: string, invoiceIds: string[]): Promise<InvoiceLineRow[]> {
    if (invoiceIds.length === 0) return [];
    return this.db
      .select()
      .from(invoiceLines)
      .where(and(eq(invoiceLines.orgId, orgId), inArray(invoiceLines.invoiceId, invoiceIds)))
      .orderBy(asc(invoiceLines.description), asc(invoiceLines.id));
  }

  /**
   * Per org: what is not collected yet, and by how many invoices. The provider's unpaid invoices
   * count with what remains on them; our own unpaid invoices count with their total unless a
   * provider invoice settles them (then the provider's count, not ours: nothing twice).
   */
  async outstandingByOrg(): Promise<Array<{ orgId: string; openInvoices: number; outstandingCents: number }>> {
    const unpaid = ['open', 'payment_failed'] as const;
    const [ours, theirs] = await Promise.all([
      this.db
        .select({ orgId: invoices.orgId, count: sql<number>`count(*)::int`.mapWith(Number), cents: sql<number>`coalesce(sum(${invoices.totalCents}), 0)::bigint`.mapWith(Number) })
        .from(invoices)
        .where(and(inArray(invoices.status, unpaid), sql`not exists (select 1 from ${providerInvoices} where ${providerInvoices.invoiceId} = ${invoices.id})`))
        .groupBy(invoices.orgId),
      this.db
        .select({ orgId: providerInvoices.orgId, count: sql<number>`count(*)::int`.mapWith(Number), cents: sql<number>`coalesce(sum(${providerInvoices.amountRemainingCents}), 0)::bigint`.mapWith(Number) })
        .from(providerInvoices)
        .where(inArray(providerInvoices.status, unpaid))
        .groupBy(providerInvoices.orgId),
    ]);
    const byOrg = new Map<string, { orgId: string; openInvoices: number; outstandingCents: number }>();
    for (const r of [...ours, ...theirs]) {
      const acc = byOrg.get(r.orgId) ?? { orgId: r.orgId, openInvoices: 0, outstandingCents: 0 };
      acc.openInvoices += r.count;
      acc.outstandingCents += r.cents;
      byOrg.set(r.orgId, acc);
    }
    return [...byOrg.values()];
  }

  // The provider's own invoices

  /**
   * Records a provider invoice as its event shows it (amounts, month; not its status, which only
   * the dunning path moves), linked to our invoice of the same org and month when that exists.
   */
  async upsertProviderInvoice(values: NewProviderInvoice): Promise<ProviderInvoiceRow> {
    const ours = await this.findInvoiceOf(values.orgId, values.period);
    const set = { period: values.period, totalCents: values.totalCents, amountRemainingCents: values.amountRemainingCents, currency: values.currency, invoiceId: ours?.id ?? null, updatedAt: new Date() };
    const [row] = await this.db.insert(providerInvoices).values({ ...values, invoiceId: ours?.id ?? null }).onConflictDoUpdate({ target: providerInvoices.providerInvoiceId, set }).returning();
    return row!;
  }

  /** The org's provider invoice, locked for the dunning transaction. */
  async lockProviderInvoice(orgId: string, providerInvoiceId: string): Promise<ProviderInvoiceRow | undefined> {
    const [row] = await this.db
      .select()
      .from(providerInvoices)
      .where(and(eq(providerInvoices.orgId, orgId), eq(providerInvoices.providerInvoiceId, providerInvoiceId)))
      .for('update');
    return row;
  }

  async updateProviderInvoice(orgId: string, providerInvoiceId: string, values: Partial<Pick<ProviderInvoiceRow, 'status' | 'amountRemainingCents'>>): Promise<void> {
    await this.db
      .update(providerInvoices)
      .set({ ...values, updatedAt: new Date() })
      .where(and(eq(providerInvoices.orgId, orgId), eq(providerInvoices.providerInvoiceId, providerInvoiceId)));
  }

  /** Links the provider invoices of an org and month to our invoice of that month (made after them). */
  async linkProviderInvoices(orgId: string, period: string, invoiceId: string): Promise<ProviderInvoiceRow[]> {
    return this.db
      .update(providerInvoices)
      .set({ invoiceId, updatedAt: new Date() })
      .where(and(eq(providerInvoices.orgId, orgId), eq(providerInvoices.period, period)))
      .returning();
  }

  async providerInvoicesOf(orgId: string, invoiceId: string): Promise<ProviderInvoiceRow[]> {
    return this.db
      .select()
      .from(providerInvoices)
      .where(and(eq(providerInvoices.orgId, orgId), eq(providerInvoices.invoiceId, invoiceId)))
      .orderBy(asc(providerInvoices.createdAt), asc(providerInvoices.providerInvoiceId));
  }

  async findInvoiceOf(orgId: string, period: string): Promise<InvoiceRow | undefined> {
    const [row] = await this.db.select().from(invoices).where(and(eq(invoices.orgId, orgId), eq(invoices.period, period)));
    return row;
  }

  // LLM cost rollups

  async lastRolledDay(): Promise<string | null> {
    const [row] = await this.db.select({ day: max(llmCostRollupDays.day) }).from(llmCostRollupDays);
    return row?.day ?? null;
  }

  /** Replaces one day's rollup (idempotent) and marks the day rolled. */
  async replaceRollupDay(day: string, rows: CostRollupRow[]): Promise<void> {
    await this.db.delete(llmCostDaily).where(eq(llmCostDaily.day, day));
    if (rows.length > 0) await this.db.insert(llmCostDaily).values(rows);
    await this.db.insert(llmCostRollupDays).values({ day }).onConflictDoUpdate({ target: llmCostRollupDays.day, set: { rolledAt: new Date() } });
  }

  /** Rollup totals for days in [from, to] (inclusive), grouped by one dimension, optionally for one org. */
  async costsBy(group: CostGroup, range: { from: string; to: string; orgId?: string }) {
    const key = groupColumn[group];
    return this.db
      .select({ key: sql<string | null>`${key}::text`, ...costTotals })
      .from(llmCostDaily)
      .where(and(gte(llmCostDaily.day, range.from), lte(llmCostDaily.day, range.to), range.orgId ? eq(llmCostDaily.orgId, range.orgId) : undefined))
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
    await this.db.insert(costReconciliations).values(values).onConflictDoUpdate({ target: costReconciliations.day, set: { ...values, checkedAt: new Date() } });
  }
}
