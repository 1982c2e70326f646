import { Module, type OnModuleInit } from '@nestjs/common';
import { expertsOrgRoom, orgRoom } from '../../contracts/realtime.js';
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
    // An Expert's socket joins the org room and the org's part of `experts` for each org its grants cover.
    this.realtime.addRoomSource(async (p) => (p.platformRole === 'expert' ? (await this.experts.orgIdsOf(p.userId)).flatMap((id) => [orgRoom(id), expertsOrgRoom(id)]) : []));
  }
}
