import { Module } from '@nestjs/common';
import { OrgsController } from './orgs.controller.js';
import { OrgsRepository } from './orgs.repository.js';
import { OrgsService } from './orgs.service.js';

@Module({ controllers: [OrgsController], providers: [OrgsRepository, OrgsService], exports: [OrgsService] })
export class OrgsModule {}
