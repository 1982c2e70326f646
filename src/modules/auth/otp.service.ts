import { Injectable, type OnModuleInit } from '@nestjs/common';
import { sixDigitCode } from '../../platform/crypto/crypto.js';
import { KeyedHash } from '../../platform/crypto/keyed-hash.js';
import { AppError } from '../../platform/errors/app-error.js';
import { SchedulerService } from '../../platform/queue/scheduler.service.js';
import type { OtpPurpose } from './auth.tables.js';
import { OtpRepository } from './otp.repository.js';

export const OTP_TTL_MS = 10 * 60_000;
export const OTP_MAX_ATTEMPTS = 5;

export interface IssueOtpInput {
  email: string;
  purpose: OtpPurpose;
  subjectId?: string;
  ttlMs?: number;
}

/**
 * Six-digit email codes: only a keyed hash is stored; each code expires (10 minutes by default),
 * allows 5 attempts and is single use; sending a new code retires the previous one.
 */
@Injectable()
export class OtpService implements OnModuleInit {
  constructor(
    private readonly repo: OtpRepository,
    private readonly scheduler: SchedulerService,
    private readonly hashes: KeyedHash,
  ) {}

  onModuleInit(): void {
    this.scheduler.every('auth.otp-cleanup', 60 * 60_000, () => this.repo.deleteStale(new Date(Date.now() - 24 * 60 * 60_000)));
  }

  /** What a code's hash is made of: the code bound to its address, purpose and subject. */
  private hashed(input: { email: string; purpose: OtpPurpose; subjectId?: string }, code: string): string {
    return `${input.purpose}:${input.subjectId ?? ''}:${input.email}:${code}`;
  }

  /** Creates a code and returns it (for the caller to mail; it is never stored in clear). */
  async issue(input: IssueOtpInput): Promise<string> {
    const code = sixDigitCode();
    await this.repo.retireLive(input.email, input.purpose, input.subjectId);
    await this.repo.insert({
      email: input.email,
      purpose: input.purpose,
      subjectId: input.subjectId,
      codeHash: this.hashes.of(this.hashed(input, code)),
      expiresAt: new Date(Date.now() + (input.ttlMs ?? OTP_TTL_MS)),
    });
    return code;
  }

  /** Redeems a code or throws 401 (wrong, expired, used, or out of attempts). */
  async redeem(input: { email: string; purpose: OtpPurpose; subjectId?: string }, code: string): Promise<void> {
    const row = await this.repo.findLatestLive(input.email, input.purpose, input.subjectId);
    if (!row) throw AppError.unauthorized('Invalid or expired code');
    if (row.attempts >= OTP_MAX_ATTEMPTS) throw AppError.unauthorized('Too many attempts: request a new code');
    if (!this.hashes.matches(row.codeHash, this.hashed(input, code))) {
      await this.repo.recordFailedAttempt(row.id);
      throw AppError.unauthorized('Invalid or expired code');
    }
    if (!(await this.repo.consume(row.id))) throw AppError.unauthorized('Invalid or expired code');
  }
}
