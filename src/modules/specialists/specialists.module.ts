import { Module } from '@nestjs/common';
import { SpecialistsController } from './specialists.controller.js';
import { SpecialistsRepository } from './specialists.repository.js';
import { SpecialistsService } from './specialists.service.js';

@Module({ controllers: [SpecialistsController], providers: [SpecialistsRepository, SpecialistsService], exports: [SpecialistsService] })
export class SpecialistsModule {}
