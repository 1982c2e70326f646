import { Inject, Injectable } from '@nestjs/common';
import type Stripe from 'stripe';
import { billingConfig, type BillingConfig } from './billing.config.js';
import { AppError } from '../../platform/errors/app-error.js';
import { logger } from '../../platform/observability/logger.js';
import { securityEvent } from '../../platform/observability/security-log.js';
import { unscopedOrg } from '../../platform/tenancy/org-scope.js';
import { BillingRepository } from './billing.repository.js';
import { BillingService } from './billing.service.js';
import { DunningService, type PaymentEventOutcome } from './dunning.service.js';
import { PAYMENT_PROVIDER, type PaymentProvider } from './payment-provider.js';
import { STRIPE_ENDED_STATUSES, StripePaymentProvider, stripeInvoicePeriod } from './stripe-payment-provider.js';

const idOf = (ref: string | { id: string } | null): string | null => (typeof ref === 'string' ? ref : (ref?.id ?? null));

/** Subscription statuses that mean Stripe could not collect (dunning), and the status that means it has again. */
const UNCOLLECTED_STATUSES: ReadonlySet<string> = new Set<Stripe.Subscription.Status>(['past_due', 'unpaid', 'incomplete_expired']);

/**
 * Stripe's own webhook (`POST /billing/stripe/webhook`, API-MAP "Billing"): verified with the
 * SDK's `constructEvent` over the raw bytes (`Stripe-Signature`, `STRIPE_WEBHOOK_SECRET`, 300 s
 * tolerance), then mapped onto the engine: `invoice.payment_failed` / `invoice.paid` become
 * `payment_failed` / `payment_succeeded` of the dunning (the same path as the generic webhook),
 * recording Stripe's invoice against ours of the same month; `customer.subscription.*` keep the
 * org's subscription in step and move the dunning when its status says Stripe could not collect
 * (or can again); `checkout.session.completed` in setup mode makes the card collected the
 * customer's default. Every event acts once per `event.id` (the processed-events table of the
 * generic webhook).
 */
@Injectable()
export class StripeWebhookService {
  constructor(
    private readonly repo: BillingRepository,
    private readonly billing: BillingService,
    private readonly dunning: DunningService,
    @Inject(billingConfig.token) private readonly config: BillingConfig,
    @Inject(PAYMENT_PROVIDER) private readonly provider: PaymentProvider,
  ) {}

  /** The Stripe adapter (the route exists with BILLING_PROVIDER=stripe only). */
  private get stripe(): StripePaymentProvider {
    if (!(this.provider instanceof StripePaymentProvider)) throw AppError.notFound('Route');
    return this.provider;
  }

  async receive(rawBody: Buffer | undefined, signature: string | string[] | undefined): Promise<PaymentEventOutcome> {
    // With the manual provider the route does not exist.
    if (this.config.provider !== 'stripe') throw AppError.notFound('Route');
    const header = Array.isArray(signature) ? signature[0] : signature;
    const secret = this.config.stripe.webhookSecret;
    let event: Stripe.Event;
    try {
      if (!secret || !header || !rawBody) throw new Error('unsigned');
      event = this.stripe.webhookEvent(rawBody, header, secret);
    } catch {
      securityEvent('webhook_signature_invalid', { channel: 'billing-stripe', reason: header ? 'signature' : 'missing_signature' });
      throw AppError.unauthorized('Bad or missing Stripe-Signature');
    }
    return this.handle(event);
  }

  private async handle(event: Stripe.Event): Promise<PaymentEventOutcome> {
    switch (event.type) {
      case 'invoice.payment_failed':
        return this.invoiceOutcome(event, 'payment_failed', event.data.object);
      case 'invoice.paid':
        return this.invoiceOutcome(event, 'payment_succeeded', event.data.object);
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
        return this.subscriptionChanged(event, event.data.object);
      case 'checkout.session.completed':
        return this.checkoutCompleted(event, event.data.object);
      default:
        // Acknowledged, so Stripe does not retry an event we do not subscribe to.
        return { ok: true, duplicate: false, ignored: 'event_type' };
    }
  }

  /** Stripe's invoice names its customer: the org is found by it, the invoice by Stripe's own id. */
  private async invoiceOutcome(event: Stripe.Event, type: 'payment_failed' | 'payment_succeeded', invoice: Stripe.Invoice): Promise<PaymentEventOutcome> {
    const orgId = await this.orgOf(event, idOf(invoice.customer));
    if (!orgId) return { ok: true, duplicate: false, ignored: 'unknown_org' };
    return this.invoiceOutcomeOf(orgId, event.id, type, invoice);
  }

  /** Stripe's invoice, recorded against our invoice of the same org and month, takes its outcome through the dunning. */
  private invoiceOutcomeOf(orgId: string, eventId: string, type: 'payment_failed' | 'payment_succeeded', invoice: Stripe.Invoice, reason?: string): Promise<PaymentEventOutcome> {
    return this.dunning.handleEvent(
      {
        id: eventId,
        type,
        data: {
          orgId,
          invoiceId: invoice.id,
          amount: (type === 'payment_failed' ? invoice.amount_due : invoice.amount_paid) / 100,
          currency: invoice.currency.toUpperCase(),
          failureReason: type === 'payment_failed' ? (reason ?? `Stripe could not collect invoice ${invoice.number ?? invoice.id} (attempt ${invoice.attempt_count})`) : undefined,
        },
      },
      undefined,
      {
        providerInvoiceId: invoice.id,
        provider: 'stripe',
        period: stripeInvoicePeriod(invoice),
        totalCents: invoice.total,
        amountRemainingCents: type === 'payment_succeeded' ? 0 : invoice.amount_remaining,
        currency: invoice.currency.toUpperCase(),
      },
    );
  }

  /**
   * The org's subscription as Stripe reports it. Its status moves the dunning: `past_due`,
   * `unpaid` or `incomplete_expired` (Stripe could not collect its latest invoice) act as that
   * invoice's `payment_failed`, `active` after `past_due` / `unpaid` as its `payment_succeeded`
   * when Stripe reports that invoice paid (not when it was voided or marked uncollectible):
   * the same invoice the invoice events name, so one failure is one failure whichever event comes
   * first. The dunning acts under `<event id>:dunning`, before the status is stored, so a retried
   * event finishes what a failed one began.
   */
  private async subscriptionChanged(event: Stripe.Event, subscription: Stripe.Subscription): Promise<PaymentEventOutcome> {
    const account = await this.accountOf(event, idOf(subscription.customer));
    if (!account) return { ok: true, duplicate: false, ignored: 'unknown_org' };
    const current = !account.providerSubscriptionId || account.providerSubscriptionId === subscription.id;
    const latest = idOf(subscription.latest_invoice);
    if (current && latest && event.type !== 'customer.subscription.deleted') {
      const dunningId = `${event.id}:dunning`;
      if (UNCOLLECTED_STATUSES.has(subscription.status) && account.providerSubscriptionStatus !== subscription.status) {
        const reason = subscription.status === 'incomplete_expired' ? `Stripe could not collect the first invoice of subscription ${subscription.id}; it expired` : undefined;
        await this.invoiceOutcomeOf(account.orgId, dunningId, 'payment_failed', await this.stripe.retrieveInvoice(latest), reason);
      } else if (subscription.status === 'active' && (account.providerSubscriptionStatus === 'past_due' || account.providerSubscriptionStatus === 'unpaid')) {
        // Active again because the invoice was paid, or because it was voided or written off: only
        // a paid one is a payment. The others stay as the invoice events left them (docs/billing.md).
        const invoice = await this.stripe.retrieveInvoice(latest);
        if (invoice.status === 'paid') await this.invoiceOutcomeOf(account.orgId, dunningId, 'payment_succeeded', invoice);
        else
          logger.warn(
            { eventId: event.id, orgId: account.orgId, invoiceId: invoice.id, invoiceStatus: invoice.status },
            'Stripe subscription active again without its latest invoice paid: the dunning is left as it is',
          );
      }
    }
    const fresh = await this.billing.providerSubscriptionChanged(event, unscopedOrg(account.orgId, "the account a Stripe event's customer names"), {
      id: subscription.id,
      status: subscription.status,
      itemIds: subscription.items.data.map((i) => i.id),
      ended: event.type === 'customer.subscription.deleted' || STRIPE_ENDED_STATUSES.has(subscription.status),
      paymentMethodFailed: subscription.status === 'incomplete_expired',
    });
    return { ok: true, duplicate: !fresh };
  }

  /**
   * A Checkout session in setup mode completed: the card it collected becomes the customer's
   * default (and the org subscription's when it names none), and our account records it as the
   * payment method on file, which lets the sweep open the org's subscription. Once per event id.
   */
  private async checkoutCompleted(event: Stripe.Event, session: Stripe.Checkout.Session): Promise<PaymentEventOutcome> {
    if (session.mode !== 'setup') return { ok: true, duplicate: false, ignored: 'event_type' };
    const account = await this.accountOf(event, idOf(session.customer));
    if (!account) return { ok: true, duplicate: false, ignored: 'unknown_org' };
    const setupIntentId = idOf(session.setup_intent);
    if (!setupIntentId) throw AppError.badRequest('A completed setup session names no SetupIntent');
    if (await this.repo.unscopedEventSeen(event.id)) return { ok: true, duplicate: true };
    // Stripe's calls carry idempotency keys made from the SetupIntent: a retried event repeats nothing there.
    const adopted = await this.stripe.adoptSetupPaymentMethod({ setupIntentId, customerId: account.providerCustomerId, subscriptionId: account.providerSubscriptionId });
    const fresh = await this.billing.providerPaymentMethodAdded(
      event,
      unscopedOrg(account.orgId, "the account a Stripe event's customer names"),
      { kind: adopted.kind, label: adopted.label },
      { paymentMethodId: adopted.paymentMethodId, setupIntentId },
    );
    return { ok: true, duplicate: !fresh };
  }

  private async orgOf(event: Stripe.Event, customerId: string | null): Promise<string | null> {
    return (await this.accountOf(event, customerId))?.orgId ?? null;
  }

  private async accountOf(event: Stripe.Event, customerId: string | null) {
    const account = customerId ? await this.repo.unscopedFindAccountByCustomer('stripe', customerId) : undefined;
    if (!account) logger.warn({ eventId: event.id, type: event.type, customerId }, 'Stripe event for a customer of no org ignored');
    return account;
  }
}
