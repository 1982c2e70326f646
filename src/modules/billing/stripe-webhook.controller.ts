import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { Public, VendorWebhook } from '../../platform/auth/auth.decorators.js';
import { Endpoint } from '../../platform/http/endpoint.js';
import { StripeWebhookService } from './stripe-webhook.service.js';

type RawRequest = FastifyRequest & { rawBody?: Buffer };

/** What the document shows of a Stripe Event; the SDK's types check it in code. */
const StripeEventDoc = z.object({ id: z.string(), object: z.literal('event'), type: z.string(), created: z.number(), data: z.object({ object: z.record(z.string(), z.unknown()) }) });

/** Stripe's webhook (API-MAP "Billing", BILLING_PROVIDER=stripe). Public; the signature is the authentication. */
@Controller('billing/stripe')
@Public()
@VendorWebhook()
export class StripeWebhookController {
  constructor(private readonly webhook: StripeWebhookService) {}

  @Post('webhook')
  @HttpCode(200)
  @Endpoint({
    summary: 'Stripe events: invoice.payment_failed, invoice.paid, customer.subscription.*, checkout.session.completed (BILLING_PROVIDER=stripe)',
    description:
      "Verified with Stripe's SDK over the raw body: `Stripe-Signature` signed with `STRIPE_WEBHOOK_SECRET`, timestamp within 300 s; a bad or missing signature answers 401. `invoice.payment_failed` / `invoice.paid` act as `payment_failed` / `payment_succeeded` for the org whose Stripe customer the invoice names, Stripe's invoice settling ours of the month of its `period_end`; `customer.subscription.*` keep the org subscription's status, `past_due` / `unpaid` / `incomplete_expired` and `active` after them moving the dunning; `checkout.session.completed` in setup mode makes the card the customer's default and the payment method on file. An event id seen before answers 200 with `duplicate: true` and changes nothing; other event types answer 200 with `ignored: 'event_type'`. With BILLING_PROVIDER=manual the route answers 404.",
    tags: ['billing'],
    body: StripeEventDoc,
    response: z.object({ ok: z.boolean(), duplicate: z.boolean(), ignored: z.string().optional() }),
    headers: { 'Stripe-Signature': 't=<unix seconds>,v1=<hex HMAC-SHA256>' },
    errors: [401, 404],
  })
  receive(@Req() req: RawRequest) {
    return this.webhook.receive(req.rawBody, req.headers['stripe-signature']);
  }
}
