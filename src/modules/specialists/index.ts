export { SpecialistsModule } from './specialists.module.js';
export { SpecialistsService, type NewSpecialist } from './specialists.service.js';
export type { SpecialistRow, MonthlyRateConfig } from './specialists.tables.js';
export { AssignmentsService, type AssignmentBillingSource } from './assignments.service.js';
export { DEFAULT_CURRENCY, resolveRate, type CatalogRate, type RateWindow, type ResolvedRate } from './rates.js';
export { MailboxesService } from './mailboxes.service.js';
export { specialistsConfig, type SpecialistsConfig } from './specialists.config.js';
export { backdateOrgAssignments } from './history-writes.js';
// The module's domain events (an augmentation of the typed event map) come with its public face.
import './mailboxes.events.js';
export { specialistNames } from './specialists.sql.js';
