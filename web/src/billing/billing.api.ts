import type {
  CheckoutUrl,
  CostRangeQuery,
  ExpertLeverage,
  ExpertWorkload,
  InvoiceDto,
  OpsBillingOrg,
  OpsBillingOrgList,
  OrgBillingDto,
  OrgCosts,
  PageOf,
  PaymentRecorded,
  PlatformCosts,
  RecordPaymentInput,
  RecordPaymentMethodInput,
  UpdateOrgBillingInput,
} from '@contracts';
import { apiFetch } from '../api/client';

const org = (orgId: string) => `/orgs/${encodeURIComponent(orgId)}`;

/** The ops payment-state list's filters: one payment state, one org. */
export interface OpsOrgsFilter {
  payment?: OpsBillingOrg['paymentState'];
  orgId?: string;
}

/** Billing settings of an org (spec 4.6), the ops billing panels and Expert analytics (spec 8.1). */
export const billingApi = {
  settings: (orgId: string, signal?: AbortSignal) => apiFetch<OrgBillingDto>(`${org(orgId)}/billing`, { signal }),
  updateEmail: (orgId: string, body: UpdateOrgBillingInput) => apiFetch<OrgBillingDto>(`${org(orgId)}/billing`, { method: 'PATCH', body }),
  invoices: (orgId: string, signal?: AbortSignal) => apiFetch<PageOf<InvoiceDto>>(`${org(orgId)}/invoices`, { signal }),
  checkoutUrl: (orgId: string) => apiFetch<CheckoutUrl>('/client/billing/checkout-url', { query: { orgId } }),
  recordPaymentMethod: (orgId: string, body: RecordPaymentMethodInput) => apiFetch<OrgBillingDto>(`${org(orgId)}/billing/payment-method`, { method: 'POST', body }),
  opsOrgs: (filter: OpsOrgsFilter, cursor: string | undefined, signal?: AbortSignal) => apiFetch<OpsBillingOrgList>('/ops/billing/orgs', { query: { ...filter, cursor }, signal }),
  opsOrg: (orgId: string, range: CostRangeQuery, signal?: AbortSignal) => apiFetch<OrgCosts>(`/ops/billing/orgs/${encodeURIComponent(orgId)}`, { query: range, signal }),
  platformCosts: (range: CostRangeQuery, signal?: AbortSignal) => apiFetch<PlatformCosts>('/ops/billing/costs', { query: range, signal }),
  recordPayment: (invoiceId: string, body: RecordPaymentInput) => apiFetch<PaymentRecorded>(`/ops/billing/invoices/${encodeURIComponent(invoiceId)}/payments`, { method: 'POST', body }),
  workload: (range: CostRangeQuery, signal?: AbortSignal) => apiFetch<ExpertWorkload>('/ops/analytics/expert-workload', { query: range, signal }),
  leverage: (signal?: AbortSignal) => apiFetch<ExpertLeverage>('/ops/analytics/expert-leverage', { signal }),
};

export const billingKeys = {
  org: (orgId: string) => ['billing', 'org', orgId] as const,
  settings: (orgId: string) => ['billing', 'org', orgId, 'settings'] as const,
  invoices: (orgId: string) => ['billing', 'org', orgId, 'invoices'] as const,
  opsOrgs: (filter: OpsOrgsFilter) => ['billing', 'ops', 'orgs', filter] as const,
  opsOrg: (orgId: string, range: CostRangeQuery) => ['billing', 'ops', 'org', orgId, range] as const,
  platformCosts: (range: CostRangeQuery) => ['billing', 'ops', 'costs', range] as const,
  workload: (range: CostRangeQuery) => ['analytics', 'workload', range] as const,
  leverage: ['analytics', 'leverage'] as const,
};

/** Micro-USD (the ledger's unit) as dollars: "$12.35"; small amounts keep four decimals. */
export function formatUsd(micro: number): string {
  const usd = micro / 1_000_000;
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: usd !== 0 && Math.abs(usd) < 1 ? 4 : 2 }).format(usd);
}

/** A billing month `2025-05` as people read it: "May 2025". */
export function formatPeriod(period: string): string {
  const match = /^(\d{4})-(\d{2})$/.exec(period);
  if (!match) return period;
  return new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1)).toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/** Cents in a currency: "$1,234.56". */
export function formatCents(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

export const PAYMENT_STATE_LABELS: Record<OrgBillingDto['dunning']['paymentState'], { label: string; color: string }> = {
  ok: { label: 'In good standing', color: 'green' },
  past_due: { label: 'Payment failed: grace period', color: 'orange' },
  suspended: { label: 'Suspended for non-payment', color: 'red' },
};

export const INVOICE_STATUS_LABELS: Record<InvoiceDto['status'], { label: string; color: string }> = {
  upcoming: { label: 'Upcoming', color: 'gray' },
  open: { label: 'Open', color: 'blue' },
  paid: { label: 'Paid', color: 'green' },
  payment_failed: { label: 'Payment failed', color: 'red' },
  void: { label: 'Void', color: 'gray' },
};
