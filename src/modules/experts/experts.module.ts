import { providePort } from '../../platform/ports/ports.js';
import { Module } from '@nestjs/common';
import { expertsOrgRoom, expertsSpecialistRoom, orgRoom } from '../../contracts/realtime.js';
import { ROOM_SOURCE, type RoomSource } from '../../platform/realtime/realtime.service.js';
import { ORG_GRANTS, OrgsModule } from '../orgs/index.js';
import { SpecialistsModule } from '../specialists/index.js';
import { UsersModule } from '../users/index.js';
import { ExpertsController } from './experts.controller.js';
import { ExpertsRepository } from './experts.repository.js';
import { ExpertsService, type ExpertCoverage } from './experts.service.js';

/**
 * The rooms one grant puts an Expert's socket in: an org-wide grant, the org room and the org's part
 * of `experts`; a Specialist-scoped one, only the rooms of the Specialists it lists (never the org's
 * own rooms, which carry every thread of the org).
 */
function roomsOfGrant(grant: ExpertCoverage): string[] {
  if (grant.scope === 'org') return [orgRoom(grant.orgId), expertsOrgRoom(grant.orgId)];
  return grant.specialistIds.map((specialistId) => expertsSpecialistRoom(grant.orgId, specialistId));
}

@Module({
  imports: [UsersModule, OrgsModule, SpecialistsModule],
  controllers: [ExpertsController],
  providers: [
    ExpertsRepository,
    ExpertsService,
    // The org's Phase 0 status asks whether an Expert is mapped.
    providePort(ORG_GRANTS, ExpertsService),
    // An Expert's socket joins the rooms of what its grants cover: whole orgs, or Specialists of an org.
    {
      provide: ROOM_SOURCE,
      inject: [ExpertsService],
      useFactory: (experts: ExpertsService): RoomSource => ({ roomsFor: async (p) => (p.platformRole === 'expert' ? (await experts.coverageOf(p.userId)).flatMap(roomsOfGrant) : []) }),
    },
  ],
  exports: [ExpertsService],
})
export class ExpertsModule {}
