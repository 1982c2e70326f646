import { Module, type OnModuleInit } from '@nestjs/common';
import { RealtimeService } from '../../platform/realtime/realtime.service.js';
import { OrgsModule, OrgsService } from '../orgs/index.js';
import { SpecialistsModule } from '../specialists/index.js';
import { UsersModule } from '../users/index.js';
import { ExpertsController } from './experts.controller.js';
import { ExpertsRepository } from './experts.repository.js';
import { ExpertsService } from './experts.service.js';

@Module({
  imports: [UsersModule, OrgsModule, SpecialistsModule],
  controllers: [ExpertsController],
  providers: [ExpertsRepository, ExpertsService],
  exports: [ExpertsService],
})
export class ExpertsModule implements OnModuleInit {
  constructor(
    private readonly experts: ExpertsService,
    private readonly orgs: OrgsService,
    private readonly realtime: RealtimeService,
  ) {}

  onModuleInit(): void {
    this.orgs.setPhase0Indicators({ expertMapped: (orgId) => this.experts.hasGrant(orgId) });
    // An Expert's socket joins the org rooms of the orgs its grants cover.
    this.realtime.addOrgRoomSource((p) => (p.platformRole === 'expert' ? this.experts.orgIdsOf(p.userId) : Promise.resolve([])));
  }
}
