import { Injectable, type OnModuleInit } from '@nestjs/common';
import { systemNow } from '../../platform/clock/clock.js';
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
    this.scheduler.every('auth.otp-cleanup', 60 * 60_000, () => this.repo.deleteStale(new Date(systemNow().getTime() - 24 * 60 * 60_000)));
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
      expiresAt: new Date(systemNow().getTime() + (input.ttlMs ?? OTP_TTL_MS)),
    });
    return code;
  }

  /**
   * The id of the live code `code` matches, or the one 401 of every failure (wrong, expired, used,
   * out of attempts, unknown address). A wrong guess spends one of the code's 5 attempts, taken
   * before the compare so that parallel guesses cannot exceed them. The code stays live: `spend`
   * it once the sign-in succeeds.
   */
  async check(input: { email: string; purpose: OtpPurpose; subjectId?: string }, code: string): Promise<string> {
    const row = await this.repo.findLatestLive(input.email, input.purpose, input.subjectId);
    if (!row || !(await this.repo.takeAttempt(row.id, OTP_MAX_ATTEMPTS))) throw invalidCode();
    if (!this.hashes.matches(row.codeHash, this.hashed(input, code))) throw invalidCode();
    await this.repo.returnAttempt(row.id);
    return row.id;
  }

  /** A right code whose sign-in failed afterwards (a wrong second factor) loses an attempt too. */
  async countFailure(id: string): Promise<void> {
    await this.repo.takeAttempt(id, OTP_MAX_ATTEMPTS);
  }

  /** Uses a checked code up; 401 when another request used it first. */
  async spend(id: string): Promise<void> {
    if (!(await this.repo.consume(id))) throw invalidCode();
  }

  /** Checks and uses up a code, or throws the one 401 of `check`. */
  async redeem(input: { email: string; purpose: OtpPurpose; subjectId?: string }, code: string): Promise<void> {
    await this.spend(await this.check(input, code));
  }
}

/** Every failure of a code answers the same, so that an answer tells nothing about the address or the code. */
export function invalidCode(): AppError {
  return AppError.unauthorized('Invalid or expired code');
}
