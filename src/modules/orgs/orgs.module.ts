import { Module } from '@nestjs/common';
import { OrgsRepository } from './orgs.repository.js';
import { OrgsService } from './orgs.service.js';

@Module({ providers: [OrgsRepository, OrgsService], exports: [OrgsService] })
export class OrgsModule {}
