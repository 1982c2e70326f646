import { providePort } from '../../platform/ports/ports.js';
import { Module } from '@nestjs/common';
import { CALLER_LOOKUP } from '../../platform/auth/request-auth.js';
import { OrgsModule } from '../orgs/index.js';
import { UsersModule } from '../users/index.js';
import { authConfig } from './auth.config.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { LoginCodeService } from './login-code.service.js';
import { OtpRepository } from './otp.repository.js';
import { OtpService } from './otp.service.js';
import { PasswordResetService } from './password-reset.service.js';
import { RecoveryCodesRepository } from './recovery-codes.repository.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';
import { TwoFactorController } from './two-factor.controller.js';
import { TwoFactorService } from './two-factor.service.js';

@Module({
  imports: [UsersModule, OrgsModule],
  controllers: [AuthController, TwoFactorController],
  providers: [
    AuthService,
    LoginCodeService,
    OtpService,
    OtpRepository,
    TwoFactorService,
    RecoveryCodesRepository,
    PasswordResetService,
    SessionsService,
    SessionsRepository,
    providePort(CALLER_LOOKUP, SessionsRepository),
    authConfig.provider,
  ],
  exports: [AuthService, OtpService, PasswordResetService, SessionsService],
})
export class AuthModule {}
