export { AdminModule } from './admin.module.js';
export { ImpersonationService } from './impersonation.service.js';
