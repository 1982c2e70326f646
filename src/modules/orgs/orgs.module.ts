import { Module, type OnModuleInit } from '@nestjs/common';
import { orgRoom } from '../../contracts/realtime.js';
import { Clock } from '../../platform/clock/clock.js';
import { SchedulerService } from '../../platform/queue/scheduler.service.js';
import { RealtimeService } from '../../platform/realtime/realtime.service.js';
import { UsersModule } from '../users/index.js';
import { AmOrgsController } from './am-orgs.controller.js';
import { ClientOrgController } from './client-org.controller.js';
import { OrgsController } from './orgs.controller.js';
import { OrgsRepository } from './orgs.repository.js';
import { OrgsService } from './orgs.service.js';

@Module({ imports: [UsersModule], controllers: [OrgsController, AmOrgsController, ClientOrgController], providers: [OrgsRepository, OrgsService], exports: [OrgsService] })
export class OrgsModule implements OnModuleInit {
  constructor(
    private readonly orgs: OrgsService,
    private readonly realtime: RealtimeService,
    private readonly scheduler: SchedulerService,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    // An AM's socket joins the org rooms of the orgs it is the assigned AM of.
    this.realtime.addRoomSource(async (p) => (p.platformRole === 'account_manager' ? (await this.orgs.orgIdsAssignedTo(p.userId)).map(orgRoom) : []));
    this.scheduler.every('orgs.lifecycle-sweep', 60 * 60_000, async () => void (await this.orgs.runLifecycleSweep(this.clock.now())));
  }
}
