export { ExpertsModule } from './experts.module.js';
export { ExpertsService, type ExpertCoverage } from './experts.service.js';
export { grantsCover } from './experts.sql.js';
