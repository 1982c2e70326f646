export { OnboardingModule } from './onboarding.module.js';
export { OnboardingService } from './onboarding.service.js';
