import { Inject, Injectable } from '@nestjs/common';
import { AuditService } from '../../platform/audit/audit.service.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { composeMail } from '../../platform/mail/mail-template.js';
import { MailService } from '../../platform/mail/mail.service.js';
import { UsersService, type UserRow } from '../users/index.js';
import { OtpService } from './otp.service.js';

/** A reset code lives 30 minutes (API-MAP.md "Auth"), single use, 5 attempts. */
export const RESET_CODE_TTL_MS = 30 * 60_000;

/**
 * Admin-initiated password resets (spec 4.7): the code goes to the user by mail only (the
 * administrator never sees it) and the user redeems it with a new password.
 */
@Injectable()
export class PasswordResetService {
  constructor(
    private readonly users: UsersService,
    private readonly otp: OtpService,
    private readonly mail: MailService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Mails a fresh 6-digit code to the user; an earlier unused code stops working. */
  async send(user: Pick<UserRow, 'email' | 'name'>): Promise<void> {
    await this.dbService.transaction(async () => {
      const code = await this.otp.issue({ email: user.email, purpose: 'password_reset', ttlMs: RESET_CODE_TTL_MS });
      const link = `${this.config.publicUrl}/reset-password?email=${encodeURIComponent(user.email)}`;
      await this.mail.send(
        composeMail({
          to: user.email,
          subject: 'Reset your password',
          sensitive: true,
          paragraphs: [
            `Hello${user.name ? ` ${user.name}` : ''},`,
            [`An administrator started a password reset for your account. Your reset code is ${code}.\nChoose a new password at `, { href: link }, ' within 30 minutes. The code works once.'],
            'If you did not expect this, contact your administrator.',
          ],
        }),
      );
    });
  }

  /** Sets the new password (ending every session) when the code is right, unexpired and unused. */
  async redeem(input: { email: string; code: string; password: string }): Promise<void> {
    const user = await this.users.findByEmail(input.email);
    if (!user) throw AppError.unauthorized('Invalid or expired code');
    await this.otp.redeem({ email: user.email, purpose: 'password_reset' }, input.code);
    if (user.status !== 'active') throw AppError.unauthorized(`This account is ${user.status}`);
    await this.users.setPassword(user.id, input.password);
    await this.audit.record({ action: 'auth.password_reset_completed', userId: user.id, resourceId: user.id });
  }
}
