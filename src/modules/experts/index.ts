export { ExpertsModule } from './experts.module.js';
export { ExpertsService } from './experts.service.js';
