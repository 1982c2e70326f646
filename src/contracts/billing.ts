import { z } from 'zod';
import { AutonomousHandlingSchema, OrgAutonomousHandlingSchema } from './conversations.js';
import { CalendarDaySchema } from './dates.js';
import { ORG_STATUSES } from './orgs.js';

const day = CalendarDaySchema;
export const BillingPeriodSchema = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'Must be a month YYYY-MM');

/** Dunning state of an org's billing account (spec 3.6). */
export const PAYMENT_STATES = ['ok', 'past_due', 'suspended'] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

export const INVOICE_STATUSES = ['open', 'paid', 'payment_failed', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** One stretch of days at one rate inside a line (a mid-period rate change makes two). */
export const InvoicePeriodSchema = z.object({
  from: day,
  to: day,
  days: z.number().int(),
  monthlyRateCents: z.number().int(),
  source: z.enum(['override', 'specialist']),
  amountCents: z.number().int(),
});
export type InvoicePeriod = z.infer<typeof InvoicePeriodSchema>;

/** One line per Specialist instance (OSA) of the org (spec 2.8). */
export const InvoiceLineSchema = z.object({
  assignmentId: z.uuid(),
  specialistId: z.uuid(),
  description: z.string(),
  daysActive: z.number().int(),
  daysInMonth: z.number().int(),
  amountCents: z.number().int(),
  currency: z.string(),
  periods: z.array(InvoicePeriodSchema),
});
export type InvoiceLine = z.infer<typeof InvoiceLineSchema>;

export const InvoiceSchema = z.object({
  id: z.uuid().nullable(),
  orgId: z.uuid(),
  period: BillingPeriodSchema,
  currency: z.string(),
  status: z.enum([...INVOICE_STATUSES, 'upcoming']),
  totalCents: z.number().int(),
  providerInvoiceId: z.string().nullable(),
  /** What the provider's own invoices of this month came to (Stripe), when they differ or not; null otherwise. */
  providerAmountCents: z.number().int().nullable(),
  issuedAt: z.string().nullable(),
  dueOn: day.nullable(),
  paidAt: z.string().nullable(),
  failedAt: z.string().nullable(),
  failureReason: z.string().nullable(),
  lines: z.array(InvoiceLineSchema),
});
export type InvoiceDto = z.infer<typeof InvoiceSchema>;

export const PaymentMethodSchema = z.object({ kind: z.enum(['card', 'bank_transfer', 'invoice']), label: z.string(), addedAt: z.string() }).nullable();
export type PaymentMethod = z.infer<typeof PaymentMethodSchema>;

export const DunningSchema = z.object({
  paymentState: z.enum(PAYMENT_STATES),
  pastDueSince: z.string().nullable(),
  graceEndsAt: z.string().nullable(),
  lastFailureReason: z.string().nullable(),
  suspendedAt: z.string().nullable(),
});

/**
 * A Specialist instance (OSA) that billing skips: `no_rate` when neither an active override nor a
 * catalog rate exists (spec 2.3 resolves to null): no invoice line, no charge.
 */
export const SKIP_REASONS = ['no_rate'] as const;
export const SkippedInstanceSchema = z.object({
  orgId: z.uuid(),
  assignmentId: z.uuid(),
  specialistId: z.uuid(),
  specialistName: z.string(),
  reason: z.enum(SKIP_REASONS),
});
export type SkippedInstance = z.infer<typeof SkippedInstanceSchema>;

/**
 * A Specialist the org pays for today: its monthly rate (null: no rate, not billed) and the day
 * billing starts or started for it (null: not before the org is active).
 */
export const BilledSpecialistSchema = z.object({
  assignmentId: z.uuid(),
  specialistId: z.uuid(),
  name: z.string(),
  monthlyRateCents: z.number().int().nullable(),
  currency: z.string().nullable(),
  billedFrom: day.nullable(),
});
export type BilledSpecialist = z.infer<typeof BilledSpecialistSchema>;

/**
 * `GET /orgs/:orgId/billing`: the client's billing settings (spec 4.6). Nothing internal: the
 * provider's own ids (customer, subscription) stay on the server.
 */
export const OrgBillingSchema = z.object({
  orgId: z.uuid(),
  orgStatus: z.enum(ORG_STATUSES),
  billingEmail: z.string().nullable(),
  provider: z.string(),
  paymentMethod: PaymentMethodSchema,
  dunning: DunningSchema,
  /** The current month's invoice as it stands; with Specialists in several currencies, the first of `upcomingInvoices`. */
  upcomingInvoice: InvoiceSchema.nullable(),
  /** One upcoming invoice per currency (invoices are per org, month and currency). */
  upcomingInvoices: z.array(InvoiceSchema),
  /** The calendar month being billed now: its first and last day. */
  currentPeriod: z.object({ period: BillingPeriodSchema, from: day, to: day }),
  /** The Specialists assigned today, by name. */
  specialists: z.array(BilledSpecialistSchema),
});
export type OrgBillingDto = z.infer<typeof OrgBillingSchema>;

export const UpdateOrgBillingSchema = z.object({ billingEmail: z.email('Must be an email address').max(254).nullable() });
export type UpdateOrgBillingInput = z.infer<typeof UpdateOrgBillingSchema>;

export const InvoiceListSchema = z.object({ items: z.array(InvoiceSchema), nextCursor: z.string().nullable() });

export const CheckoutUrlSchema = z.object({ url: z.string(), provider: z.string(), mode: z.literal('setup') });

/** The default provider's setup page records a payment method of ours. */
export const RecordPaymentMethodSchema = z.object({
  kind: z.enum(['card', 'bank_transfer', 'invoice']),
  label: z.string().trim().min(1).max(80),
});
export type RecordPaymentMethodInput = z.infer<typeof RecordPaymentMethodSchema>;

/** `POST /billing/provider/webhook` body (API-MAP.md "Billing"). */
export const BillingWebhookSchema = z.object({
  id: z.string().min(1).max(200),
  type: z.enum(['payment_failed', 'payment_succeeded']),
  data: z.object({
    orgId: z.uuid(),
    /** The provider's own id of the invoice (API-MAP: any non-empty string), or ours. */
    invoiceId: z.string().min(1).max(200).optional(),
    amount: z.number().optional(),
    currency: z.string().optional(),
    failureReason: z.string().max(500).optional(),
  }),
});
export type BillingWebhookEvent = z.infer<typeof BillingWebhookSchema>;

/** A superadmin records the outcome of a manual payment (the default provider). */
export const RecordPaymentSchema = z.object({ outcome: z.enum(['paid', 'failed']), reason: z.string().trim().max(500).optional() });
export type RecordPaymentInput = z.infer<typeof RecordPaymentSchema>;

export const OpsBillingOrgSchema = z.object({
  orgId: z.uuid(),
  legalName: z.string(),
  slug: z.string(),
  orgStatus: z.enum(ORG_STATUSES),
  assignedAmId: z.uuid().nullable(),
  ...DunningSchema.shape,
  /** Unpaid invoices, all currencies. */
  openInvoices: z.number().int(),
  /** `outstandingCents` and `monthlyRunRateCents` in `currency`: the first of `amounts` (the org's largest monthly fee). */
  outstandingCents: z.number().int(),
  currency: z.string(),
  monthlyRunRateCents: z.number().int(),
  /** Every currency the org is billed or owes in, largest monthly fee first. */
  amounts: z.array(z.object({ currency: z.string(), monthlyRunRateCents: z.number().int(), outstandingCents: z.number().int(), openInvoices: z.number().int() })),
  specialistInstances: z.number().int(),
  /** Assigned Specialist instances billing skips today, with the reason. */
  skipped: z.array(SkippedInstanceSchema),
});
export type OpsBillingOrg = z.infer<typeof OpsBillingOrgSchema>;
export const OpsBillingOrgListSchema = z.object({ items: z.array(OpsBillingOrgSchema), nextCursor: z.string().nullable() });

export const CostPointSchema = z.object({ day, costMicroUsd: z.number(), calls: z.number().int() });
export const CostSliceSchema = z.object({ key: z.string().nullable(), label: z.string(), costMicroUsd: z.number(), calls: z.number().int(), inputTokens: z.number(), outputTokens: z.number() });
export type CostSlice = z.infer<typeof CostSliceSchema>;

export const CostRangeQuerySchema = z.object({
  from: day.optional(),
  to: day.optional(),
});
export type CostRangeQuery = z.infer<typeof CostRangeQuerySchema>;

/** `GET /ops/billing/costs` (spec 8.1): platform LLM cost from the ledger. */
export const PlatformCostsSchema = z.object({
  from: day,
  to: day,
  totalMicroUsd: z.number(),
  trend: z.array(CostPointSchema),
  topOrgs: z.array(CostSliceSchema),
  bySpecialist: z.array(CostSliceSchema),
  byPurpose: z.array(CostSliceSchema),
  reconciliation: z
    .object({
      day,
      ledgerMicroUsd: z.number(),
      tracingMicroUsd: z.number().nullable(),
      driftMicroUsd: z.number().nullable(),
      driftPercent: z.number().nullable(),
      alerted: z.boolean(),
      checkedAt: z.string(),
    })
    .nullable(),
});
export type PlatformCosts = z.infer<typeof PlatformCostsSchema>;

export const UsagePointSchema = z.object({ at: z.string(), clientMessages: z.number().int(), specialistMessages: z.number().int() });

/** `GET /ops/billing/orgs/:orgId` (spec 8.1): usage (never billed) and LLM cost of one org. */
export const OrgCostsSchema = z.object({
  org: OpsBillingOrgSchema,
  from: day,
  to: day,
  quota: z.object({ limit: z.number().int(), used: z.number().int() }),
  hourlyUsage: z.array(UsagePointSchema),
  dailyUsage: z.array(UsagePointSchema),
  costTrend: z.array(CostPointSchema),
  costBySpecialist: z.array(CostSliceSchema),
  totalMicroUsd: z.number(),
  invoices: z.array(InvoiceSchema),
  /** Of the org's conversations created in the range: the share the Specialist handled alone. */
  autonomousHandling: OrgAutonomousHandlingSchema,
});
export type OrgCosts = z.infer<typeof OrgCostsSchema>;

/** `GET /ops/analytics/expert-workload`: attention-list items and handle time per Specialist. */
export const ExpertWorkloadSchema = z.object({
  from: day,
  to: day,
  items: z.array(
    z.object({
      specialistId: z.uuid(),
      name: z.string(),
      items: z.number().int(),
      open: z.number().int(),
      resolved: z.number().int(),
      escalations: z.number().int(),
      agentFailures: z.number().int(),
      avgHandleMinutes: z.number().nullable(),
    }),
  ),
  nextCursor: z.string().nullable(),
  /** Of the conversations created in the range: the share the Specialist handled alone, platform wide, per org and per Specialist. */
  autonomousHandling: AutonomousHandlingSchema,
});
export type ExpertWorkload = z.infer<typeof ExpertWorkloadSchema>;

/** `GET /ops/analytics/expert-leverage`: clients and Specialist instances per Expert. */
export const ExpertLeverageSchema = z.object({
  items: z.array(z.object({ expertId: z.uuid(), name: z.string(), email: z.string(), clients: z.number().int(), specialistInstances: z.number().int() })),
  nextCursor: z.string().nullable(),
});
export type ExpertLeverage = z.infer<typeof ExpertLeverageSchema>;

export const InvoiceRunSchema = z.object({ period: BillingPeriodSchema.optional() });
/** Invoices are counted one per org and currency; `skipped`: the instances of the month with no line. */
export const InvoiceRunResultSchema = z.object({ period: BillingPeriodSchema, created: z.number().int(), existing: z.number().int(), skipped: z.array(SkippedInstanceSchema) });

/** Money as the pages show it: cents to "1,234.56 USD". */
export function formatCents(cents: number, currency: string): string {
  return `${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${currency}`;
}

/** Micro-USD (the ledger's unit) to USD. */
export function microUsdToUsd(micro: number): number {
  return micro / 1_000_000;
}
export type CheckoutUrl = z.infer<typeof CheckoutUrlSchema>;
export type OpsBillingOrgList = z.infer<typeof OpsBillingOrgListSchema>;

/** A manual payment recorded (`POST /ops/billing/invoices/{invoiceId}/payments`); `duplicate` when it was already. */
export const PaymentRecordedSchema = z.object({ ok: z.boolean(), duplicate: z.boolean() });
export type PaymentRecorded = z.infer<typeof PaymentRecordedSchema>;
