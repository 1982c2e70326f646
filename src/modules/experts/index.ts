export { ExpertsModule } from './experts.module.js';
export { ExpertsService, type ExpertCoverage } from './experts.service.js';
