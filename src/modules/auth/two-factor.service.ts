import { Injectable } from '@nestjs/common';
import type { TotpSetupResponse } from '../../contracts/auth.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import type { Principal } from '../../platform/auth/principal.js';
import { SecretBox } from '../../platform/crypto/crypto.js';
import { KeyedHash } from '../../platform/crypto/keyed-hash.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { RateLimitService, type Limiter } from '../../platform/rate-limit/rate-limit.service.js';
import { UsersService, type UserRow } from '../users/index.js';
import { checkGuess } from './guess-guard.js';
import { RecoveryCodesRepository } from './recovery-codes.repository.js';
import { RECOVERY_CODE_COUNT, newRecoveryCode, normalizeRecoveryCode } from './two-factor.rules.js';

const ISSUER = 'Client Organization Service';
/** otplib and qrcode are loaded with the first two-factor step, not while the app starts. */
const totp = () => import('otplib');
/** Codes of the step before and after the current one are accepted (clock drift). */
const EPOCH_TOLERANCE_S = 30;

export interface SecondFactor {
  totpCode?: string;
  recoveryCode?: string;
}

/**
 * Two-factor sign-in (spec 4.3, 5.1): a TOTP secret sealed at rest, set up with a QR code and
 * turned on by a first valid code; a code is accepted once (its time step is remembered);
 * recovery codes are stored as keyed hashes and each works once.
 */
@Injectable()
export class TwoFactorService {
  private readonly wrongCodes: Limiter;

  constructor(
    private readonly users: UsersService,
    private readonly recoveryCodes: RecoveryCodesRepository,
    private readonly secrets: SecretBox,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    private readonly hashes: KeyedHash,
    rateLimits: RateLimitService,
  ) {
    // Per user, outside sign-in (turning on, turning off, renewing recovery codes): 5 wrong codes in
    // 15 minutes, then 429 until the window ends, for a right code too.
    this.wrongCodes = rateLimits.limiter({ name: 'second-factor-check', points: 5, durationS: 15 * 60 });
  }

  /** A new secret (not yet in force) and a new set of recovery codes, shown once. */
  async setup(principal: Principal): Promise<TotpSetupResponse> {
    const user = await this.requireUser(principal.userId);
    if (user.totpEnabled) throw AppError.conflict('Two-factor sign-in is already on: turn it off first');
    const [{ generateSecret, generateURI }, { toDataURL }] = await Promise.all([totp(), import('qrcode')]);
    const secret = generateSecret();
    const otpauthUrl = generateURI({ issuer: ISSUER, label: user.email, secret });
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await this.dbService.transaction(async () => {
      await this.users.setTotp(user.id, { secretEnc: this.secrets.seal(secret), enabled: false });
      await this.recoveryCodes.replace(
        user.id,
        recoveryCodes.map((c) => this.hashes.of(recoveryInput(user.id, c))),
      );
    });
    return { secret, otpauthUrl, qrCodeDataUrl: await toDataURL(otpauthUrl), recoveryCodes };
  }

  /** The first valid code from the authenticator turns two-factor sign-in on. */
  async enable(principal: Principal, code: string, ip: string): Promise<void> {
    const user = await this.requireUser(principal.userId);
    if (user.totpEnabled) throw AppError.conflict('Two-factor sign-in is already on');
    if (!user.totpSecretEnc) throw AppError.conflict('Start the two-factor setup first');
    await this.checkCode(user, ip, 'enable', () => this.totpMatches(user, code));
    await this.users.setTotp(user.id, { enabled: true });
    await this.audit.record({ action: 'auth.2fa_enabled', userId: user.id, resourceId: user.id, impersonatorId: principal.impersonatorId });
  }

  async disable(principal: Principal, factor: SecondFactor, ip: string): Promise<void> {
    const user = await this.requireEnabled(principal.userId);
    await this.checkCode(user, ip, 'disable', () => this.passes(user, factor));
    await this.dbService.transaction(async () => {
      await this.users.setTotp(user.id, { secretEnc: null, enabled: false });
      await this.recoveryCodes.replace(user.id, []);
    });
    await this.audit.record({ action: 'auth.2fa_disabled', userId: user.id, resourceId: user.id, impersonatorId: principal.impersonatorId });
  }

  /** A fresh set of recovery codes; the old ones stop working. */
  async renewRecoveryCodes(principal: Principal, factor: SecondFactor, ip: string): Promise<string[]> {
    const user = await this.requireEnabled(principal.userId);
    await this.checkCode(user, ip, 'recovery_codes', () => this.passes(user, factor));
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await this.recoveryCodes.replace(
      user.id,
      codes.map((c) => this.hashes.of(recoveryInput(user.id, c))),
    );
    await this.audit.record({ action: 'auth.2fa_recovery_codes_renewed', userId: user.id, resourceId: user.id, impersonatorId: principal.impersonatorId });
    return codes;
  }

  unusedRecoveryCodes(userId: string): Promise<number> {
    return this.recoveryCodes.countUnused(userId);
  }

  /**
   * The second factor of a sign-in: `totp_required` (401) when none was sent, false when the
   * one sent is wrong, already used, or (for a TOTP code) replayed.
   */
  async check(user: UserRow, factor: SecondFactor): Promise<boolean> {
    if (!factor.totpCode && !factor.recoveryCode) throw new AppError('totp_required', 'Two-factor code required');
    const ok = await this.passes(user, factor);
    if (ok && !factor.totpCode) {
      await this.audit.record({ action: 'auth.recovery_code_used', userId: user.id, resourceId: user.id, meta: { left: await this.recoveryCodes.countUnused(user.id) } });
    }
    return ok;
  }

  /** A code checked outside sign-in, against the user's budget of 5 wrong codes per 15 minutes; a wrong one answers 400. */
  private async checkCode(user: UserRow, ip: string, action: string, check: () => Promise<boolean>): Promise<void> {
    await checkGuess({ limiter: this.wrongCodes, key: user.id, event: 'second_factor_failed', fields: { userId: user.id, ip, action }, lockedMessage: 'Too many wrong two-factor codes' }, check, () =>
      AppError.badRequest('Invalid two-factor code'),
    );
  }

  private async passes(user: UserRow, factor: SecondFactor): Promise<boolean> {
    if (factor.totpCode) return this.totpMatches(user, factor.totpCode);
    if (factor.recoveryCode) return this.recoveryCodes.consume(user.id, this.hashes.candidates(recoveryInput(user.id, factor.recoveryCode)));
    return false;
  }

  private async totpMatches(user: UserRow, code: string): Promise<boolean> {
    if (!user.totpSecretEnc) return false;
    const { verify: verifyTotp } = await totp();
    const result = await verifyTotp({ secret: this.secrets.open(user.totpSecretEnc), token: code, epochTolerance: EPOCH_TOLERANCE_S });
    if (!result.valid || !('timeStep' in result)) return false;
    // Each time step once: a code seen on the wire cannot be replayed.
    return this.users.acceptTotpStep(user.id, result.timeStep);
  }

  private async requireUser(userId: string): Promise<UserRow> {
    const user = await this.users.findById(userId);
    if (!user) throw AppError.notFound('User');
    return user;
  }

  private async requireEnabled(userId: string): Promise<UserRow> {
    const user = await this.requireUser(userId);
    if (!user.totpEnabled) throw AppError.conflict('Two-factor sign-in is not on');
    return user;
  }
}

/** What a recovery code's hash is made of: the code, normalized, bound to its user. */
function recoveryInput(userId: string, code: string): string {
  return `recovery:${userId}:${normalizeRecoveryCode(code)}`;
}
