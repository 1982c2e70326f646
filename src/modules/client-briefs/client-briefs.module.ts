import { Module } from '@nestjs/common';
import { ExpertsModule } from '../experts/index.js';
import { OrgsModule } from '../orgs/index.js';
import { ClientBriefsController } from './client-briefs.controller.js';
import { ClientBriefsRepository } from './client-briefs.repository.js';
import { ClientBriefsService } from './client-briefs.service.js';
import { EnvironmentProfilesRedirectController } from './environment-profiles.controller.js';

@Module({
  imports: [OrgsModule, ExpertsModule],
  controllers: [ClientBriefsController, EnvironmentProfilesRedirectController],
  providers: [ClientBriefsRepository, ClientBriefsService],
  exports: [ClientBriefsService],
})
export class ClientBriefsModule {}
