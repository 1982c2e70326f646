import { join } from 'node:path';
import { Module, type OnModuleInit } from '@nestjs/common';
import { orgRoom } from '../../contracts/realtime.js';
import { Clock } from '../../platform/clock/clock.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { SchedulerService } from '../../platform/queue/scheduler.service.js';
import { ROOM_SOURCE, type RoomSource } from '../../platform/realtime/realtime.service.js';
import { DirectoryFileStorage } from '../../platform/storage/file-storage.js';
import { UsersModule } from '../users/index.js';
import { AmOrgsController } from './am-orgs.controller.js';
import { ClientOrgController } from './client-org.controller.js';
import { OrgLogosController } from './org-logos.controller.js';
import { OrgLogosRepository } from './org-logos.repository.js';
import { LOGO_STORAGE, OrgLogosService } from './org-logos.service.js';
import { orgsConfig } from './orgs.config.js';
import { OrgsController } from './orgs.controller.js';
import { OrgsRepository } from './orgs.repository.js';
import { OrgsService } from './orgs.service.js';

@Module({
  imports: [UsersModule],
  controllers: [OrgsController, AmOrgsController, ClientOrgController, OrgLogosController],
  providers: [
    OrgsRepository,
    OrgsService,
    // An AM's socket joins the org rooms of the orgs it is the assigned AM of.
    {
      provide: ROOM_SOURCE,
      inject: [OrgsService],
      useFactory: (orgs: OrgsService): RoomSource => ({ roomsFor: async (p) => (p.platformRole === 'account_manager' ? (await orgs.orgIdsAssignedTo(p.userId)).map(orgRoom) : []) }),
    },
    OrgLogosRepository,
    OrgLogosService,
    orgsConfig.provider,
    // Logos are kept like a conversation's artifacts: files under DATA_DIR (shared storage with several instances).
    { provide: LOGO_STORAGE, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new DirectoryFileStorage(join(config.dataDir, 'logos')) },
  ],
  exports: [OrgsService],
})
export class OrgsModule implements OnModuleInit {
  constructor(
    private readonly orgs: OrgsService,
    private readonly scheduler: SchedulerService,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.scheduler.every('orgs.lifecycle-sweep', 60 * 60_000, async () => void (await this.orgs.runLifecycleSweep(this.clock.now())));
  }
}
