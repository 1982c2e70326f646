export { BillingModule } from './billing.module.js';
export { BillingService } from './billing.service.js';
export { DunningService } from './dunning.service.js';
export { billingConfig, type BillingConfig } from './billing.config.js';
export { dayOf, periodOf, previousPeriod } from './proration.js';
