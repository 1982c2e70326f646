import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/index.js';
import { providePort } from '../../platform/ports/ports.js';
import { ORG_INVITE, OrgsModule } from '../orgs/index.js';
import { SpecialistsModule } from '../specialists/index.js';
import { UsersModule } from '../users/index.js';
import { OnboardingController } from './onboarding.controller.js';
import { InvitesRepository } from './onboarding.repository.js';
import { OnboardingService } from './onboarding.service.js';

@Module({
  imports: [UsersModule, OrgsModule, SpecialistsModule, AuthModule],
  controllers: [OnboardingController],
  providers: [
    InvitesRepository,
    OnboardingService,
    // A changed admin email is followed by the invite sent to it.
    providePort(ORG_INVITE, OnboardingService),
  ],
  exports: [OnboardingService],
})
export class OnboardingModule {}
