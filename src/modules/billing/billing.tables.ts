import { bigint, boolean, date, index, integer, jsonb, pgTable, primaryKey, real, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { INVOICE_STATUSES, PAYMENT_STATES, type InvoicePeriod, type InvoiceStatus, type PaymentMethod, type PaymentState } from '../../contracts/billing.js';
import { oneOf } from '../../platform/db/checks.js';
import { orgs } from '../orgs/orgs.tables.js';

/**
 * The billing-customer link of an org (spec 4.6: created eagerly) and its dunning state (spec 3.6).
 */
export const billingAccounts = pgTable(
  'billing_accounts',
  {
    orgId: uuid('org_id')
      .primaryKey()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    providerCustomerId: text('provider_customer_id').notNull(),
    /**
     * A provider that keeps one subscription per org with one item per OSA (Stripe): that
     * subscription's id, and its status as the provider last reported it. Null for the manual provider.
     */
    providerSubscriptionId: text('provider_subscription_id'),
    providerSubscriptionStatus: text('provider_subscription_status'),
    paymentMethod: jsonb('payment_method').$type<PaymentMethod>(),
    paymentState: text('payment_state').$type<PaymentState>().notNull().default('ok'),
    pastDueSince: timestamp('past_due_since', { withTimezone: true }),
    graceEndsAt: timestamp('grace_ends_at', { withTimezone: true }),
    lastFailureReason: text('last_failure_reason'),
    /** Set when the access gate suspended the org for non-payment (and only then). */
    suspendedAt: timestamp('suspended_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('billing_accounts_grace_idx').on(t.paymentState, t.graceEndsAt),
    uniqueIndex('billing_accounts_provider_customer_key').on(t.provider, t.providerCustomerId),
    oneOf('billing_accounts_payment_state_check', t.paymentState, PAYMENT_STATES),
  ],
);
export type BillingAccountRow = typeof billingAccounts.$inferSelect;

/**
 * One subscription per OSA (spec 2.8), with the plan it is on at the provider. With Stripe the
 * OSA's subscription is an item (`si_...`) of the org's one subscription.
 */
export const billingSubscriptions = pgTable(
  'billing_subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    assignmentId: uuid('assignment_id').notNull(),
    specialistId: uuid('specialist_id').notNull(),
    providerSubscriptionId: text('provider_subscription_id').notNull(),
    plan: text('plan').notNull(),
    /** First billed day. */
    startsOn: date('starts_on', { mode: 'string' }).notNull(),
    /** First day no longer billed (the day of unassignment); null while assigned. */
    endsOn: date('ends_on', { mode: 'string' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('billing_subscriptions_assignment_key').on(t.assignmentId), index('billing_subscriptions_org_idx').on(t.orgId)],
);
export type BillingSubscriptionRow = typeof billingSubscriptions.$inferSelect;

/**
 * One invoice per org, calendar month and currency (spec 2.8; docs/billing.md "Invoices": lines in
 * different currencies are never summed); the unique key makes the run idempotent.
 */
export const invoices = pgTable(
  'invoices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    period: text('period').notNull(),
    currency: text('currency').notNull(),
    status: text('status').$type<InvoiceStatus>().notNull().default('open'),
    totalCents: bigint('total_cents', { mode: 'number' }).notNull(),
    providerInvoiceId: text('provider_invoice_id'),
    /**
     * A provider that collects through its own invoices (Stripe): what its invoices of this org and
     * month came to, beside our total (they may differ: Stripe prorates by the second and bills in
     * advance). Null while no provider invoice settles this one.
     */
    providerAmountCents: bigint('provider_amount_cents', { mode: 'number' }),
    issuedAt: timestamp('issued_at', { withTimezone: true }).notNull(),
    dueOn: date('due_on', { mode: 'string' }).notNull(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    failedAt: timestamp('failed_at', { withTimezone: true }),
    failureReason: text('failure_reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('invoices_org_period_currency_key').on(t.orgId, t.period, t.currency), index('invoices_status_idx').on(t.status), oneOf('invoices_status_check', t.status, INVOICE_STATUSES)],
);
export type InvoiceRow = typeof invoices.$inferSelect;

/** A provider invoice is never void. */
export const PROVIDER_INVOICE_STATUSES = INVOICE_STATUSES.filter((s): s is Exclude<InvoiceStatus, 'void'> => s !== 'void');
export type ProviderInvoiceStatus = (typeof PROVIDER_INVOICE_STATUSES)[number];

/**
 * The provider's own invoices (Stripe's `in_...`), as its events reported them: each belongs to
 * the org and month of its `period_end` and settles our invoice of that org and month
 * (`invoiceId`, linked when both exist). `amountRemainingCents` of an unpaid one is what the org
 * still owes the provider (docs/billing.md "Our invoices and Stripe's").
 */
export const providerInvoices = pgTable(
  'provider_invoices',
  {
    providerInvoiceId: text('provider_invoice_id').primaryKey(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    period: text('period').notNull(),
    status: text('status').$type<ProviderInvoiceStatus>().notNull().default('open'),
    totalCents: bigint('total_cents', { mode: 'number' }).notNull(),
    amountRemainingCents: bigint('amount_remaining_cents', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    invoiceId: uuid('invoice_id').references(() => invoices.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('provider_invoices_org_period_idx').on(t.orgId, t.period),
    index('provider_invoices_invoice_idx').on(t.invoiceId),
    oneOf('provider_invoices_status_check', t.status, PROVIDER_INVOICE_STATUSES),
  ],
);
export type ProviderInvoiceRow = typeof providerInvoices.$inferSelect;

/** One line per Specialist instance (OSA), its rate periods kept for the reader. */
export const invoiceLines = pgTable(
  'invoice_lines',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    invoiceId: uuid('invoice_id')
      .notNull()
      .references(() => invoices.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    assignmentId: uuid('assignment_id').notNull(),
    specialistId: uuid('specialist_id').notNull(),
    description: text('description').notNull(),
    daysActive: integer('days_active').notNull(),
    daysInMonth: integer('days_in_month').notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    periods: jsonb('periods').$type<InvoicePeriod[]>().notNull(),
  },
  (t) => [index('invoice_lines_invoice_idx').on(t.invoiceId), index('invoice_lines_org_idx').on(t.orgId)],
);
export type InvoiceLineRow = typeof invoiceLines.$inferSelect;

/** Provider webhook events seen, by their id: a replay is answered and does nothing. */
export const billingWebhookEvents = pgTable('billing_webhook_events', {
  eventId: text('event_id').primaryKey(),
  type: text('type').notNull(),
  orgId: uuid('org_id'),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Daily rollup of the `llm_runs` ledger per org, OSA and purpose (closed UTC days), so the cost
 * panels read a few thousand rows instead of a million; today is read live from the ledger.
 */
export const llmCostDaily = pgTable(
  'llm_cost_daily',
  {
    day: date('day', { mode: 'string' }).notNull(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    osaId: uuid('osa_id'),
    purpose: text('purpose').notNull(),
    costMicroUsd: bigint('cost_micro_usd', { mode: 'number' }).notNull(),
    inputTokens: bigint('input_tokens', { mode: 'number' }).notNull(),
    outputTokens: bigint('output_tokens', { mode: 'number' }).notNull(),
    calls: integer('calls').notNull(),
    errors: integer('errors').notNull(),
  },
  (t) => [index('llm_cost_daily_day_idx').on(t.day), index('llm_cost_daily_org_day_idx').on(t.orgId, t.day)],
);
export type LlmCostDailyRow = typeof llmCostDaily.$inferSelect;

/** Which closed days are rolled up (a day with no ledger rows has no rollup rows, but is done). */
export const llmCostRollupDays = pgTable('llm_cost_rollup_days', {
  day: date('day', { mode: 'string' }).primaryKey(),
  rolledAt: timestamp('rolled_at', { withTimezone: true }).notNull().defaultNow(),
});

/** The nightly comparison of the ledger with the external tracing tool (analytics only). */
export const costReconciliations = pgTable(
  'cost_reconciliations',
  {
    day: date('day', { mode: 'string' }).notNull(),
    ledgerMicroUsd: bigint('ledger_micro_usd', { mode: 'number' }).notNull(),
    tracingMicroUsd: bigint('tracing_micro_usd', { mode: 'number' }),
    driftMicroUsd: bigint('drift_micro_usd', { mode: 'number' }),
    driftPercent: real('drift_percent'),
    alerted: boolean('alerted').notNull().default(false),
    error: text('error'),
    checkedAt: timestamp('checked_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.day] })],
);
export type CostReconciliationRow = typeof costReconciliations.$inferSelect;
