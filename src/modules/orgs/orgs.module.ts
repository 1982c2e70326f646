import { Module, type OnModuleInit } from '@nestjs/common';
import { RealtimeService } from '../../platform/realtime/realtime.service.js';
import { UsersModule } from '../users/index.js';
import { AmOrgsController } from './am-orgs.controller.js';
import { OrgsController } from './orgs.controller.js';
import { OrgsRepository } from './orgs.repository.js';
import { OrgsService } from './orgs.service.js';

@Module({ imports: [UsersModule], controllers: [OrgsController, AmOrgsController], providers: [OrgsRepository, OrgsService], exports: [OrgsService] })
export class OrgsModule implements OnModuleInit {
  constructor(
    private readonly orgs: OrgsService,
    private readonly realtime: RealtimeService,
  ) {}

  onModuleInit(): void {
    // An AM's socket joins the org rooms of the orgs it is the assigned AM of.
    this.realtime.addOrgRoomSource((p) => (p.platformRole === 'account_manager' ? this.orgs.orgIdsAssignedTo(p.userId) : Promise.resolve([])));
  }
}
