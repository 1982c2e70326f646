import { providePort } from '../../platform/ports/ports.js';
import { Module, type OnModuleInit } from '@nestjs/common';
import { CLOSED_ORGS_SOURCE } from '../../platform/auth/org-access-gate.js';
import { Clock } from '../../platform/clock/clock.js';
import { SchedulerService } from '../../platform/queue/scheduler.service.js';
import { AgentModule } from '../agent/index.js';
import { ConversationsModule } from '../conversations/index.js';
import { ExpertsModule } from '../experts/index.js';
import { OrgsModule } from '../orgs/index.js';
import { SpecialistsModule } from '../specialists/index.js';
import { UsersModule } from '../users/index.js';
import { AnalyticsService } from './analytics.service.js';
import { BillingWebhookController } from './billing-webhook.controller.js';
import { BillingWebhookService } from './billing-webhook.service.js';
import { BillingRepository } from './billing.repository.js';
import { BillingService } from './billing.service.js';
import { ClientBillingController } from './client-billing.controller.js';
import { CostsService } from './costs.service.js';
import { DunningService } from './dunning.service.js';
import { OpsAnalyticsController, OpsBillingController } from './ops-billing.controller.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { billingConfig, type BillingConfig } from './billing.config.js';
import { ManualPaymentProvider, PAYMENT_PROVIDER, type PaymentProvider } from './payment-provider.js';
import { dayOf, periodOf, previousPeriod } from './proration.js';
import { ReconciliationService } from './reconciliation.service.js';
import { StripePaymentProvider, stripeApi } from './stripe-payment-provider.js';
import { StripeWebhookController } from './stripe-webhook.controller.js';
import { StripeWebhookService } from './stripe-webhook.service.js';
import { TracingClient } from './tracing.client.js';

const MINUTE = 60_000;

@Module({
  imports: [UsersModule, OrgsModule, SpecialistsModule, ExpertsModule, AgentModule, ConversationsModule],
  controllers: [ClientBillingController, BillingWebhookController, StripeWebhookController, OpsBillingController, OpsAnalyticsController],
  providers: [
    BillingRepository,
    BillingService,
    DunningService,
    // Spec 3.6: the one access gate, for client requests (RequestGuard) and agent turns (conversations).
    providePort(CLOSED_ORGS_SOURCE, DunningService),
    BillingWebhookService,
    StripeWebhookService,
    CostsService,
    ReconciliationService,
    TracingClient,
    AnalyticsService,
    billingConfig.provider,
    // BILLING_PROVIDER: manual (the default; payments recorded by a superadmin) or stripe.
    {
      provide: PAYMENT_PROVIDER,
      inject: [APP_CONFIG, billingConfig.token],
      useFactory: async (config: AppConfig, billing: BillingConfig): Promise<PaymentProvider> =>
        billing.provider === 'stripe' ? new StripePaymentProvider(await stripeApi(billing), config) : new ManualPaymentProvider(config),
    },
  ],
  exports: [BillingService, DunningService],
})
export class BillingModule implements OnModuleInit {
  constructor(
    private readonly scheduler: SchedulerService,
    private readonly clock: Clock,
    private readonly billing: BillingService,
    private readonly dunning: DunningService,
    private readonly costs: CostsService,
    private readonly reconciliation: ReconciliationService,
  ) {}

  onModuleInit(): void {
    this.scheduler.every('billing.accounts-and-subscriptions', 10 * MINUTE, async () => void (await this.billing.syncAccountsAndSubscriptions()));
    this.scheduler.every('billing.access-gate', 5 * MINUTE, async () => void (await this.dunning.runAccessGate(this.clock.now())));
    this.scheduler.every('billing.generate-invoices', 60 * MINUTE, async () => void (await this.billing.generateInvoices(previousPeriod(periodOf(dayOf(this.clock.now()))))));
    this.scheduler.every('billing.cost-rollup', 15 * MINUTE, async () => void (await this.costs.rollupClosedDays()));
    // Nightly: the first tick of each UTC day.
    this.scheduler.every('billing.cost-reconciliation', 24 * 60 * MINUTE, async () => void (await this.reconciliation.reconcile()));
  }
}
