export { BillingModule } from './billing.module.js';
export { BillingService } from './billing.service.js';
export { DunningService } from './dunning.service.js';
