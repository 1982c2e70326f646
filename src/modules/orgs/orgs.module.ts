import { Module } from '@nestjs/common';
import { UsersModule } from '../users/index.js';
import { AmOrgsController } from './am-orgs.controller.js';
import { OrgsController } from './orgs.controller.js';
import { OrgsRepository } from './orgs.repository.js';
import { OrgsService } from './orgs.service.js';

@Module({ imports: [UsersModule], controllers: [OrgsController, AmOrgsController], providers: [OrgsRepository, OrgsService], exports: [OrgsService] })
export class OrgsModule {}
