export { SpecialistsModule } from './specialists.module.js';
export { SpecialistsService, type NewSpecialist } from './specialists.service.js';
export type { SpecialistRow, MonthlyRateConfig } from './specialists.tables.js';
export { AssignmentsService, type AssignmentBillingSource } from './assignments.service.js';
export { resolveRate, type RateWindow, type ResolvedRate } from './rates.js';
