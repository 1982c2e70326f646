import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DbService } from '../../platform/db/db.service.js';
import { composeMail } from '../../platform/mail/mail-template.js';
import { MailService } from '../../platform/mail/mail.service.js';
import { QueueService } from '../../platform/queue/queue.service.js';
import { RateLimitService, type Limiter } from '../../platform/rate-limit/rate-limit.service.js';
import { UsersService } from '../users/index.js';
import './auth.jobs.js';
import { OtpService } from './otp.service.js';

/**
 * Sign-in codes by email (POST /auth/request-otp). The request only queues the address: the answer
 * is the same 204, after the same work, for a known and an unknown address (nothing to time). The
 * queued job looks the user up and mails a code to an active one; being in the queue's table, it
 * survives a restart.
 */
@Injectable()
export class LoginCodeService implements OnModuleInit {
  private readonly mailsPerAddress: Limiter;

  constructor(
    private readonly users: UsersService,
    private readonly otp: OtpService,
    private readonly mail: MailService,
    private readonly dbService: DbService,
    private readonly queue: QueueService,
    rateLimits: RateLimitService,
  ) {
    // Per address: a code mail at most 5 times in 15 minutes.
    this.mailsPerAddress = rateLimits.limiter({ name: 'otp-request', points: 5, durationS: 15 * 60 });
  }

  onModuleInit(): void {
    this.queue.handle('auth.login-code', ({ email }) => this.deliver(email), { retryLimit: 3, retryDelaySeconds: 5, pollingIntervalSeconds: 0.5 });
  }

  async request(email: string): Promise<void> {
    await this.queue.send('auth.login-code', { email });
  }

  /** The job: a code goes out only to an active user, within the address's budget. */
  async deliver(email: string): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user || user.status !== 'active') return;
    if (!(await this.mailsPerAddress.consume(email)).allowed) return;
    await this.dbService.transaction(async () => {
      const code = await this.otp.issue({ email, purpose: 'login' });
      await this.mail.send(
        composeMail({
          to: email,
          subject: `Your sign-in code: ${code}`,
          sensitive: true,
          paragraphs: [`Your sign-in code is ${code}. It expires in 10 minutes. If you did not ask for it, ignore this email.`],
        }),
      );
    });
  }
}
