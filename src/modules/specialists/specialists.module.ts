import { Module } from '@nestjs/common';
import { SpecialistsRepository } from './specialists.repository.js';
import { SpecialistsService } from './specialists.service.js';

@Module({ providers: [SpecialistsRepository, SpecialistsService], exports: [SpecialistsService] })
export class SpecialistsModule {}
