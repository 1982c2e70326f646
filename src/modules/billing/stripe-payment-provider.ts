import type Stripe from 'stripe';
import { systemNow } from '../../platform/clock/clock.js';
import type { AppConfig } from '../../platform/config/config.js';
import type { BillingConfig } from './billing.config.js';
import type { OrgSubscription, PaymentProvider, PlanPrice } from './payment-provider.js';

/** Stripe subscription statuses after which it bills nothing more and takes no items: a new one is opened. */
export const STRIPE_ENDED_STATUSES: ReadonlySet<string> = new Set<Stripe.Subscription.Status>(['canceled', 'incomplete_expired']);

/**
 * The Stripe SDK as configured: the secret key, and (tests only) `STRIPE_API_BASE_URL` taken
 * apart into the host, port and protocol the SDK accepts. The SDK is loaded here, with
 * BILLING_PROVIDER=stripe only (about 0.15 s of every start otherwise).
 */
export async function stripeApi(billing: BillingConfig): Promise<Stripe> {
  const { secretKey, apiBaseUrl } = billing.stripe;
  if (!secretKey) throw new Error('STRIPE_SECRET_KEY is not set');
  const base = apiBaseUrl ? new URL(apiBaseUrl) : null;
  const { default: Stripe } = await import('stripe');
  return new Stripe(secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    appInfo: { name: 'client-organization-service' },
    ...(base && { host: base.hostname, port: base.port || (base.protocol === 'https:' ? 443 : 80), protocol: base.protocol === 'https:' ? 'https' : 'http' }),
  });
}

const unixDay = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000);

/**
 * Stripe as the payment provider (docs/billing.md "Stripe"). An org is a Stripe customer
 * (`metadata.orgId`, its id stored as our `providerCustomerId`) with one subscription, anchored on
 * the 1st of the month; each OSA is one item of it (`si_...`, `metadata.assignmentId`) on the
 * price of its plan (`lookup_key` = the plan key, created on demand). Rate changes and
 * unassignment are prorated by Stripe (`proration_behavior: 'create_prorations'`). Stripe's own
 * subscription invoices collect the money; their outcome comes back through its webhook.
 * Creating calls carry idempotency keys derived from our ids, so a retried or raced call makes
 * nothing twice.
 */
export class StripePaymentProvider implements PaymentProvider {
  readonly name = 'stripe';
  /** Without a default payment method Stripe's first invoice stays incomplete and the subscription expires after ~23 h. */
  readonly subscribesWithPaymentMethodOnly = true;
  /** All items of a Stripe subscription are in one currency. */
  readonly singleCurrency = true;
  /** Price ids by plan key: prices never change, so a found one stays good. */
  private readonly prices = new Map<string, string>();

  constructor(
    private readonly stripe: Stripe,
    private readonly config: AppConfig,
  ) {}

  /** A webhook's event, verified with the SDK over the raw bytes (throws when the signature does not hold). */
  webhookEvent(rawBody: Buffer, signature: string, secret: string): Stripe.Event {
    return this.stripe.webhooks.constructEvent(rawBody, signature, secret);
  }

  async createCustomer(org: { id: string; legalName: string; billingEmail: string | null }) {
    const customer = await this.stripe.customers.create(
      { name: org.legalName, ...(org.billingEmail && { email: org.billingEmail }), metadata: { orgId: org.id } },
      { idempotencyKey: `org:${org.id}:customer` },
    );
    return { customerId: customer.id };
  }

  async createSubscription(input: { orgId: string; customerId: string; orgSubscription: OrgSubscription | null; assignmentId: string; plan: string; price: PlanPrice; startsOn: string }) {
    const price = await this.priceFor(input.plan, input.price);
    const metadata = { orgId: input.orgId, assignmentId: input.assignmentId };
    const current = input.orgSubscription && !STRIPE_ENDED_STATUSES.has(input.orgSubscription.status ?? '') ? input.orgSubscription.id : null;
    if (current) {
      const item = await this.stripe.subscriptionItems.create(
        { subscription: current, price, quantity: 1, proration_behavior: 'create_prorations', metadata },
        { idempotencyKey: `osa:${input.assignmentId}:item-of:${current}` },
      );
      return { subscriptionId: item.id, orgSubscriptionId: current };
    }
    // A start in the future (a trial) is a Stripe trial until that day; otherwise the cycle is the calendar month.
    const startsAt = unixDay(input.startsOn);
    const timing: Partial<Stripe.SubscriptionCreateParams> = startsAt > systemNow().getTime() / 1000 ? { trial_end: startsAt } : { billing_cycle_anchor_config: { day_of_month: 1 } };
    const subscription = await this.stripe.subscriptions.create(
      {
        customer: input.customerId,
        items: [{ price, quantity: 1, metadata }],
        metadata: { orgId: input.orgId },
        collection_method: 'charge_automatically',
        payment_behavior: 'allow_incomplete',
        proration_behavior: 'create_prorations',
        ...timing,
      },
      // One subscription per org: the key names the one it replaces, so two sweeps cannot open two.
      { idempotencyKey: `org:${input.orgId}:subscription-after:${input.orgSubscription?.id ?? 'none'}` },
    );
    const item = subscription.items.data.find((i) => i.metadata.assignmentId === input.assignmentId);
    if (!item) throw new Error(`Stripe subscription ${subscription.id} has no item for assignment ${input.assignmentId}`);
    return { subscriptionId: item.id, orgSubscriptionId: subscription.id };
  }

  async changePlan(input: { subscriptionId: string; plan: string; price: PlanPrice }): Promise<void> {
    const price = await this.priceFor(input.plan, input.price);
    await this.stripe.subscriptionItems.update(input.subscriptionId, { price, proration_behavior: 'create_prorations' }, { idempotencyKey: `osa-item:${input.subscriptionId}:price:${price}` });
  }

  /** Removes the OSA's item, prorated; Stripe keeps no subscription without items, so the last one cancels it. */
  async endSubscription(input: { subscriptionId: string; orgSubscription: OrgSubscription | null; lastOfOrg: boolean }): Promise<void> {
    if (input.lastOfOrg && input.orgSubscription) {
      await this.stripe.subscriptions.cancel(input.orgSubscription.id, { prorate: true, invoice_now: true });
      return;
    }
    await this.stripe.subscriptionItems.del(input.subscriptionId, { proration_behavior: 'create_prorations' });
  }

  /** A pending invoice item on the customer (`POST /v1/invoiceitems`): Stripe adds it to the customer's next invoice. */
  async billOneOff(input: { orgId: string; customerId: string; assignmentId: string; description: string; amountCents: number; currency: string; startsOn: string; endsOn: string }) {
    const item = await this.stripe.invoiceItems.create(
      {
        customer: input.customerId,
        amount: input.amountCents,
        currency: input.currency.toLowerCase(),
        description: input.description,
        period: { start: unixDay(input.startsOn), end: unixDay(input.endsOn) },
        metadata: { orgId: input.orgId, assignmentId: input.assignmentId },
      },
      { idempotencyKey: `osa:${input.assignmentId}:one-off` },
    );
    return { id: item.id };
  }

  /**
   * The card a Checkout session in setup mode collected becomes the customer's default for
   * invoices, and the subscription's when it names none. Returns what the client sees of it.
   */
  async adoptSetupPaymentMethod(input: {
    setupIntentId: string;
    customerId: string;
    subscriptionId: string | null;
  }): Promise<{ paymentMethodId: string; label: string; kind: 'card' | 'bank_transfer' }> {
    const intent = await this.stripe.setupIntents.retrieve(input.setupIntentId, { expand: ['payment_method'] });
    const method = intent.payment_method;
    if (!method) throw new Error(`Stripe SetupIntent ${intent.id} has no payment method`);
    const paymentMethodId = typeof method === 'string' ? method : method.id;
    await this.stripe.customers.update(input.customerId, { invoice_settings: { default_payment_method: paymentMethodId } }, { idempotencyKey: `setup:${intent.id}:customer-default` });
    if (input.subscriptionId) {
      const subscription = await this.stripe.subscriptions.retrieve(input.subscriptionId);
      if (!subscription.default_payment_method && !STRIPE_ENDED_STATUSES.has(subscription.status)) {
        await this.stripe.subscriptions.update(subscription.id, { default_payment_method: paymentMethodId }, { idempotencyKey: `setup:${intent.id}:subscription-default` });
      }
    }
    return { paymentMethodId, ...describePaymentMethod(typeof method === 'string' ? null : method) };
  }

  async retrieveInvoice(id: string): Promise<Stripe.Invoice> {
    return this.stripe.invoices.retrieve(id);
  }

  /** Stripe's subscription invoices collect what the items owe; ours is not issued a second time. */
  async issueInvoice() {
    return { providerInvoiceId: null };
  }

  async setupUrl(input: { customerId: string; orgId: string }): Promise<string> {
    const back = `${this.config.publicUrl}/client/settings/billing?orgId=${encodeURIComponent(input.orgId)}`;
    const session = await this.stripe.checkout.sessions.create({
      mode: 'setup',
      customer: input.customerId,
      currency: 'usd',
      success_url: `${back}&setup=done`,
      cancel_url: back,
      metadata: { orgId: input.orgId },
      setup_intent_data: { metadata: { orgId: input.orgId } },
    });
    if (!session.url) throw new Error(`Stripe checkout session ${session.id} has no URL`);
    return session.url;
  }

  /** The price of a plan key (`lookup_key`), created on first use. */
  private async priceFor(plan: string, price: PlanPrice): Promise<string> {
    const known = this.prices.get(plan);
    if (known) return known;
    const [found] = (await this.stripe.prices.list({ lookup_keys: [plan], active: true, limit: 1 })).data;
    const id =
      found?.id ??
      (
        await this.stripe.prices.create(
          {
            currency: price.currency.toLowerCase(),
            unit_amount: price.unitAmountCents,
            recurring: { interval: 'month' },
            lookup_key: plan,
            product_data: { name: `Specialist instance, ${(price.unitAmountCents / 100).toFixed(2)} ${price.currency.toUpperCase()} a month` },
            metadata: { plan },
          },
          { idempotencyKey: `price:${plan}` },
        )
      ).id;
    this.prices.set(plan, id);
    return id;
  }
}

/** What the client's billing page shows of a Stripe payment method: "Visa •••• 4242", or its type. */
function describePaymentMethod(method: Stripe.PaymentMethod | null): { label: string; kind: 'card' | 'bank_transfer' } {
  if (method?.card) return { kind: 'card', label: `${method.card.brand.charAt(0).toUpperCase()}${method.card.brand.slice(1)} •••• ${method.card.last4}` };
  if (method?.us_bank_account) return { kind: 'bank_transfer', label: `${method.us_bank_account.bank_name ?? 'Bank account'} •••• ${method.us_bank_account.last4 ?? ''}`.trim() };
  if (method?.sepa_debit) return { kind: 'bank_transfer', label: `SEPA •••• ${method.sepa_debit.last4 ?? ''}`.trim() };
  return { kind: 'card', label: method ? method.type : 'Payment method' };
}

/**
 * The month of ours a Stripe invoice settles: the UTC month of its `period_end`. A cycle invoice
 * ends its period on the day the new cycle starts (the month it bills in advance), the first
 * invoice of a subscription and a final one on the day they are made.
 */
export function stripeInvoicePeriod(invoice: Pick<Stripe.Invoice, 'period_end'>): string {
  return new Date(invoice.period_end * 1000).toISOString().slice(0, 7);
}
