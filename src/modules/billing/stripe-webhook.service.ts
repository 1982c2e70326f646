import { Inject, Injectable } from '@nestjs/common';
import Stripe from 'stripe';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { AppError } from '../../platform/errors/app-error.js';
import { logger } from '../../platform/observability/logger.js';
import { securityEvent } from '../../platform/observability/security-log.js';
import { BillingRepository } from './billing.repository.js';
import { BillingService } from './billing.service.js';
import { DunningService, type PaymentEventOutcome } from './dunning.service.js';
import { STRIPE_ENDED_STATUSES } from './stripe-payment-provider.js';

const idOf = (ref: string | { id: string } | null): string | null => (typeof ref === 'string' ? ref : (ref?.id ?? null));

/**
 * Stripe's own webhook (`POST /billing/stripe/webhook`, API-MAP "Billing"): verified with the
 * SDK's `constructEvent` over the raw bytes (`Stripe-Signature`, `STRIPE_WEBHOOK_SECRET`, 300 s
 * tolerance), then mapped onto the engine: `invoice.payment_failed` / `invoice.paid` become
 * `payment_failed` / `payment_succeeded` of the dunning (the same path as the generic webhook),
 * `customer.subscription.*` keep the org's subscription in step. Every event acts once per
 * `event.id` (the processed-events table of the generic webhook).
 */
@Injectable()
export class StripeWebhookService {
  constructor(
    private readonly repo: BillingRepository,
    private readonly billing: BillingService,
    private readonly dunning: DunningService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async receive(rawBody: Buffer | undefined, signature: string | string[] | undefined): Promise<PaymentEventOutcome> {
    // With the manual provider the route does not exist.
    if (this.config.billing.provider !== 'stripe') throw AppError.notFound('Route');
    const header = Array.isArray(signature) ? signature[0] : signature;
    const secret = this.config.billing.stripe.webhookSecret;
    let event: Stripe.Event;
    try {
      if (!secret || !header || !rawBody) throw new Error('unsigned');
      event = Stripe.webhooks.constructEvent(rawBody, header, secret);
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
      default:
        // Acknowledged, so Stripe does not retry an event we do not subscribe to.
        return { ok: true, duplicate: false, ignored: 'event_type' };
    }
  }

  /** Stripe's invoice names its customer: the org is found by it, the invoice by Stripe's own id. */
  private async invoiceOutcome(event: Stripe.Event, type: 'payment_failed' | 'payment_succeeded', invoice: Stripe.Invoice): Promise<PaymentEventOutcome> {
    const orgId = await this.orgOf(event, idOf(invoice.customer));
    if (!orgId) return { ok: true, duplicate: false, ignored: 'unknown_org' };
    return this.dunning.handleEvent({
      id: event.id,
      type,
      data: {
        orgId,
        invoiceId: invoice.id,
        amount: (type === 'payment_failed' ? invoice.amount_due : invoice.amount_paid) / 100,
        currency: invoice.currency.toUpperCase(),
        failureReason: type === 'payment_failed' ? `Stripe could not collect invoice ${invoice.number ?? invoice.id} (attempt ${invoice.attempt_count})` : undefined,
      },
    });
  }

  private async subscriptionChanged(event: Stripe.Event, subscription: Stripe.Subscription): Promise<PaymentEventOutcome> {
    const orgId = await this.orgOf(event, idOf(subscription.customer));
    if (!orgId) return { ok: true, duplicate: false, ignored: 'unknown_org' };
    const fresh = await this.billing.providerSubscriptionChanged(event, orgId, {
      id: subscription.id,
      status: subscription.status,
      itemIds: subscription.items.data.map((i) => i.id),
      ended: event.type === 'customer.subscription.deleted' || STRIPE_ENDED_STATUSES.has(subscription.status),
    });
    return { ok: true, duplicate: !fresh };
  }

  private async orgOf(event: Stripe.Event, customerId: string | null): Promise<string | null> {
    const account = customerId ? await this.repo.findAccountByCustomer('stripe', customerId) : undefined;
    if (!account) logger.warn({ eventId: event.id, type: event.type, customerId }, 'Stripe event for a customer of no org ignored');
    return account?.orgId ?? null;
  }
}
