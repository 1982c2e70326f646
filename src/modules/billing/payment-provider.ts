import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import type { BillingConfig } from './billing.config.js';

/**
 * The payment provider behind the billing engine. Our engine decides what is owed (spec 2.8); a
 * provider keeps customers, subscriptions and invoices and collects the money. Its outcomes come
 * back as `payment_failed` / `payment_succeeded` events (the webhook, or a superadmin recording a
 * manual payment).
 */
export interface PaymentProvider {
  readonly name: string;
  /**
   * True: a subscription is opened only once the org has a payment method on file (recorded from
   * the provider's setup page), since the provider charges its first invoice at once (Stripe).
   */
  readonly subscribesWithPaymentMethodOnly: boolean;
  /**
   * True: an org's subscriptions at the provider share one currency (Stripe: the items of one
   * subscription must). An OSA in another currency is then not subscribed; our invoice of its
   * currency carries it, collected by hand.
   */
  readonly singleCurrency: boolean;
  /** The billing-customer link of an org, made eagerly (spec 4.6). */
  createCustomer(org: { id: string; legalName: string; billingEmail: string | null }): Promise<{ customerId: string }>;
  /**
   * One subscription per OSA, on the plan the pricing strategy maps its rate to; `price` is what
   * the plan stands for, so a hosted provider can create it on demand. `orgSubscription` is the
   * org's subscription at the provider as last stored (for a provider that keeps one per org with
   * one item per OSA); the answer names it again, or the new one.
   */
  createSubscription(input: {
    orgId: string;
    customerId: string;
    orgSubscription: OrgSubscription | null;
    assignmentId: string;
    plan: string;
    price: PlanPrice;
    startsOn: string;
  }): Promise<{ subscriptionId: string; orgSubscriptionId: string | null }>;
  /** A rate change moves the subscription to another plan from that day: an upgrade or downgrade, prorated. */
  changePlan(input: { subscriptionId: string; plan: string; price: PlanPrice; from: string }): Promise<void>;
  /**
   * Unassignment ends the subscription; `endsOn` is the first day not billed. `lastOfOrg`: no other
   * OSA of the org is still subscribed (a provider with one subscription per org then ends it).
   */
  endSubscription(input: { subscriptionId: string; endsOn: string; orgSubscription: OrgSubscription | null; lastOfOrg: boolean }): Promise<void>;
  /**
   * Issues the invoice our engine computed; the provider collects it. Null: the provider collects
   * through its own subscription invoices, which come back by their own ids (Stripe).
   */
  issueInvoice(input: { customerId: string; invoiceId: string; totalCents: number; currency: string; dueOn: string }): Promise<{ providerInvoiceId: string | null }>;
  /**
   * An OSA assigned and unassigned between two sweeps never had a subscription: what our engine
   * bills for its days is charged once (Stripe: a pending invoice item, taken by the next invoice).
   */
  billOneOff(input: { orgId: string; customerId: string; assignmentId: string; description: string; amountCents: number; currency: string; startsOn: string; endsOn: string }): Promise<{ id: string }>;
  /** Where a client adds a payment method (setup mode, spec 4.6). */
  setupUrl(input: { customerId: string; orgId: string }): Promise<string>;
}

/** A plan's monthly price: cents and an ISO currency. */
export interface PlanPrice {
  unitAmountCents: number;
  currency: string;
}

/** The org's subscription at a provider that keeps one per org, and its status as last reported. */
export interface OrgSubscription {
  id: string;
  status: string | null;
}

export const PAYMENT_PROVIDER = Symbol('PAYMENT_PROVIDER');

export type PricingStrategy = BillingConfig['pricingStrategy'];

/**
 * The plan a subscription sits on (spec 2.8). `plan_per_rate`: one plan per distinct monthly
 * rate and currency, so an override or a rate change moves the subscription to another plan.
 * `plan_overrides`: one plan per catalog Specialist, an override being a price override on the
 * subscription itself, which providers sell as a premium feature (refused at boot without the licence).
 */
export function planFor(strategy: PricingStrategy, input: { specialistId: string; monthlyRateCents: number | null; currency: string }): string {
  if (strategy === 'plan_overrides') return `specialist_${input.specialistId}`;
  return input.monthlyRateCents === null ? 'unpriced' : `rate_${input.currency.toLowerCase()}_${input.monthlyRateCents}`;
}

/**
 * The default provider: invoices are paid by hand (bank transfer, cheque) and a superadmin records
 * each payment as paid or failed; customers and subscriptions are our own rows, so its ids are
 * made here. Its setup page is ours: `/client/settings/billing/payment-method`.
 */
@Injectable()
export class ManualPaymentProvider implements PaymentProvider {
  readonly name = 'manual';
  readonly subscribesWithPaymentMethodOnly = false;
  readonly singleCurrency = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async createCustomer(org: { id: string }) {
    return { customerId: `manual_cus_${org.id}` };
  }

  async createSubscription(input: { assignmentId: string }) {
    return { subscriptionId: `manual_sub_${input.assignmentId}`, orgSubscriptionId: null };
  }

  async changePlan(): Promise<void> {}

  async endSubscription(): Promise<void> {}

  async issueInvoice(input: { invoiceId: string }) {
    return { providerInvoiceId: `manual_inv_${input.invoiceId.slice(0, 8)}_${randomUUID().slice(0, 8)}` };
  }

  /** Our invoice of the month carries the OSA's line; the manual provider collects that. */
  async billOneOff(input: { assignmentId: string }) {
    return { id: `manual_once_${input.assignmentId}` };
  }

  async setupUrl(input: { orgId: string }) {
    return `${this.config.publicUrl}/client/settings/billing/payment-method?orgId=${encodeURIComponent(input.orgId)}`;
  }
}
