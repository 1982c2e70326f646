import { Module } from '@nestjs/common';
import { OrgsModule } from '../orgs/index.js';
import { UsersModule } from '../users/index.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { OtpRepository } from './otp.repository.js';
import { OtpService } from './otp.service.js';

@Module({
  imports: [UsersModule, OrgsModule],
  controllers: [AuthController],
  providers: [AuthService, OtpService, OtpRepository],
  exports: [AuthService, OtpService],
})
export class AuthModule {}
