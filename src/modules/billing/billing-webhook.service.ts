import { Inject, Injectable } from '@nestjs/common';
import { BillingWebhookSchema } from '../../contracts/billing.js';
import { systemNow } from '../../platform/clock/clock.js';
import { billingConfig, type BillingConfig } from './billing.config.js';
import { unstorablePath } from '../../platform/db/storable-text.js';
import { AppError } from '../../platform/errors/app-error.js';
import { zodFieldErrors } from '../../platform/errors/zod-details.js';
import { securityEvent } from '../../platform/observability/security-log.js';
import { DunningService, type PaymentEventOutcome } from './dunning.service.js';
import { verifyBillingSignature } from './webhook.verify.js';

/** Verifies a provider event over its raw bytes (fail closed), then hands it to dunning. */
@Injectable()
export class BillingWebhookService {
  constructor(
    private readonly dunning: DunningService,
    @Inject(billingConfig.token) private readonly config: BillingConfig,
  ) {}

  async receive(rawBody: Buffer | undefined, signature: string | string[] | undefined, body: unknown): Promise<PaymentEventOutcome> {
    const header = Array.isArray(signature) ? signature[0] : signature;
    if (!verifyBillingSignature(this.config.webhookSecret, header, rawBody, Math.floor(systemNow().getTime() / 1000))) {
      securityEvent('webhook_signature_invalid', { channel: 'billing', reason: header ? 'signature' : 'missing_signature' });
      throw AppError.unauthorized('Bad or missing X-Billing-Signature');
    }
    const event = BillingWebhookSchema.safeParse(body);
    if (!event.success) throw new AppError('validation_failed', 'Invalid body', { details: zodFieldErrors(event.error) });
    const unstorable = unstorablePath(event.data);
    if (unstorable) throw new AppError('validation_failed', 'Invalid body', { details: [{ field: unstorable.join('.'), message: 'Contains a NUL or an unpaired surrogate, which cannot be stored' }] });
    return this.dunning.handleEvent(event.data);
  }
}
