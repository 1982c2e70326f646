export { AuthModule } from './auth.module.js';
export { AuthService } from './auth.service.js';
export { OtpService } from './otp.service.js';
export { PasswordResetService } from './password-reset.service.js';
export { SessionsService, type OpenedSession } from './sessions.service.js';
export { authConfig, type AuthConfig } from './auth.config.js';
