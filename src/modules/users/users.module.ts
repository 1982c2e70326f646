import { Module } from '@nestjs/common';
import { PRINCIPAL_LOADER } from '../../platform/auth/principal.js';
import { AmProfileController } from './am-profile.controller.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';

@Module({
  controllers: [AmProfileController],
  providers: [UsersRepository, UsersService, { provide: PRINCIPAL_LOADER, useExisting: UsersService }],
  exports: [UsersService, PRINCIPAL_LOADER],
})
export class UsersModule {}
