import { Module } from '@nestjs/common';
import { AmProfileController } from './am-profile.controller.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';

@Module({
  controllers: [AmProfileController],
  providers: [UsersRepository, UsersService],
  exports: [UsersService],
})
export class UsersModule {}
