import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { BillingWebhookSchema } from '../../contracts/billing.js';
import { Public, VendorWebhook } from '../../platform/auth/auth.decorators.js';
import { Endpoint } from '../../platform/http/endpoint.js';
import { BillingWebhookService } from './billing-webhook.service.js';

type RawRequest = FastifyRequest & { rawBody?: Buffer };

/** The payment provider's webhook (spec 3.6, 6.2). Public; the signature is the authentication. */
@Controller('billing/provider')
@Public()
@VendorWebhook()
export class BillingWebhookController {
  constructor(private readonly webhook: BillingWebhookService) {}

  @Post('webhook')
  @HttpCode(200)
  @Endpoint({
    summary: 'Payment provider events: payment_failed, payment_succeeded',
    description:
      'Signed: `X-Billing-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(BILLING_WEBHOOK_SECRET, "<t>.<raw body>")>`, `t` within 300 s; a bad or missing signature answers 401. An event id seen before answers 200 with `duplicate: true` and changes nothing.',
    tags: ['billing'],
    body: BillingWebhookSchema,
    response: z.object({ ok: z.boolean(), duplicate: z.boolean(), ignored: z.string().optional() }),
    headers: { 'X-Billing-Signature': 't=<unix seconds>,v1=<hex HMAC-SHA256>' },
    errors: [400, 401],
  })
  receive(@Req() req: RawRequest) {
    return this.webhook.receive(req.rawBody, req.headers['x-billing-signature'], req.body);
  }
}
