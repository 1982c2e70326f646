import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import type { ChangePasswordInput, MeResponse, TokenResponse, UserDto } from '../../contracts/auth.js';
import { landingFor } from '../../contracts/roles.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { authConfig, type AuthConfig } from './auth.config.js';
import { safeEqual } from '../../platform/crypto/crypto.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { securityEvent } from '../../platform/observability/security-log.js';
import { RateLimitService, type Limiter } from '../../platform/rate-limit/rate-limit.service.js';
import { OrgsService, type OrgSummary } from '../orgs/index.js';
import { UsersService, type UserRow } from '../users/index.js';
import { checkGuess, type GuessBudget } from './guess-guard.js';
import { OtpService, invalidCode } from './otp.service.js';
import { SessionsService } from './sessions.service.js';
import { TwoFactorService, type SecondFactor } from './two-factor.service.js';

const BOOTSTRAP_LOCK = 7_410_222;

type UserShape = Pick<UserRow, 'id' | 'email' | 'name' | 'platformRole' | 'status' | 'totpEnabled' | 'createdAt'>;

/** Sign-in methods and the session token (spec 4.3, 5). */
@Injectable()
export class AuthService {
  private readonly loginFailures: Limiter;

  constructor(
    private readonly users: UsersService,
    private readonly orgs: OrgsService,
    private readonly sessions: SessionsService,
    private readonly otp: OtpService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    private readonly twoFactor: TwoFactorService,
    rateLimits: RateLimitService,
    @Inject(authConfig.token) private readonly config: AuthConfig,
  ) {
    // Per address and client IP: 10 wrong passwords or second factors in 15 minutes, then 429 until
    // the window ends. Keyed by the IP too, so that guessing from one place never locks the owner out.
    this.loginFailures = rateLimits.limiter({ name: 'login-failure', points: 10, durationS: 15 * 60 });
  }

  /** `ip` is the client address as the HTTP layer derives it (`TRUST_PROXY`). */
  async login(input: { email: string; password: string } & SecondFactor, ip: string): Promise<TokenResponse> {
    let user: UserRow | undefined;
    await checkGuess(
      this.signInBudget(input.email, ip, 'login_failed', { method: 'password' }),
      async () => {
        user = await this.users.findByEmail(input.email);
        return this.users.checkPassword(user, input.password);
      },
      () => AppError.unauthorized('Invalid email or password'),
    );
    this.assertActive(user!);
    await this.requireSecondFactor(user!, input, ip, 'password', () => AppError.unauthorized('Invalid two-factor code'));
    return this.startSession(user!, user!.totpEnabled ? 'password+2fa' : 'password');
  }

  /**
   * Every failure answers the one 401 of a wrong code (unknown address, wrong, expired or used code,
   * inactive user, wrong second factor). Only a right code without the second factor of a 2FA user
   * answers `totp_required`, and that code stays usable until the second factor comes with it.
   */
  async verifyOtp(email: string, code: string, factor: SecondFactor, ip: string): Promise<TokenResponse> {
    const user = await this.users.findByEmail(email);
    let codeId: string;
    try {
      codeId = await this.otp.check({ email, purpose: 'login' }, code);
    } catch (err) {
      securityEvent('otp_failed', { email, userId: user?.id, ip, method: 'email_otp' });
      throw err;
    }
    if (!user || user.status !== 'active') {
      securityEvent('otp_failed', { email, userId: user?.id, ip, method: 'email_otp', reason: 'inactive' });
      throw invalidCode();
    }
    if (user.totpEnabled && !factor.totpCode && !factor.recoveryCode) throw new AppError('totp_required', 'Two-factor code required');
    await this.requireSecondFactor(
      user,
      factor,
      ip,
      'email_otp',
      () => invalidCode(),
      () => this.otp.countFailure(codeId),
    );
    await this.otp.spend(codeId);
    return this.startSession(user, user.totpEnabled ? 'email_otp+2fa' : 'email_otp');
  }

  /** The caller's own profile name (an empty name clears it); sessions stay valid. */
  async updateMe(principal: Principal, name: string): Promise<MeResponse> {
    const row = await this.users.setName(principal.userId, name);
    return this.me({ ...principal, name: row.name, record: { ...principal.record, name: row.name } });
  }

  /**
   * The caller's own password change: the current password checked like a sign-in, every earlier
   * session ended, and a new session for this browser.
   */
  async changePassword(principal: Principal, input: ChangePasswordInput, ip: string): Promise<TokenResponse> {
    if (principal.impersonatorId) throw AppError.forbidden('A password cannot be changed while impersonating');
    const user = await this.users.findById(principal.userId);
    if (!user) throw AppError.unauthorized('Invalid token');
    await checkGuess(
      // A budget of its own (the same 10 per 15 minutes): wrong guesses here never lock the sign-in out.
      { ...this.signInBudget(user.email, ip, 'login_failed', { userId: user.id, method: 'password_change' }), key: `password-change|${user.id}|${ip}` },
      () => this.users.checkPassword(user, input.currentPassword),
      () => new AppError('validation_failed', 'Invalid body', { details: [{ field: 'currentPassword', message: 'Wrong password' }] }),
    );
    const updated = await this.users.setPassword(user.id, input.password);
    await this.audit.record({ action: 'auth.password_changed', userId: user.id, resourceId: user.id });
    return this.startSession(updated, 'password_change');
  }

  /** Described from the row the guard read for this request: no second read of the user. */
  async me(principal: Principal): Promise<MeResponse> {
    const dto = await this.toUserDto(principal.record, principal.record.orgMemberships);
    return { ...dto, landing: landingFor(dto.platformRole), ...(principal.impersonatorId ? { impersonatorId: principal.impersonatorId } : {}) };
  }

  /** Creates the first superadmin (API-MAP.md "Auth"): needs BOOTSTRAP_TOKEN, refused once one exists. */
  async bootstrap(headerToken: string | undefined, input: { email: string; password: string; name: string }): Promise<TokenResponse> {
    if (!this.config.bootstrapToken) throw AppError.forbidden('Bootstrap is disabled: BOOTSTRAP_TOKEN is not set');
    if (!headerToken || !safeEqual(headerToken, this.config.bootstrapToken)) throw AppError.unauthorized('Invalid bootstrap token');
    const user = await this.dbService.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`);
      if ((await this.users.countSuperadmins()) > 0) throw AppError.conflict('A superadmin already exists');
      return this.users.create({ email: input.email, name: input.name, platformRole: 'superadmin', password: input.password });
    });
    await this.audit.record({ action: 'auth.bootstrap', userId: user.id, resourceId: user.id });
    return this.startSession(user, 'bootstrap');
  }

  /** Opens a server-side session for a user who has just proven who they are, and issues its token. */
  async startSession(user: UserRow, method: string): Promise<TokenResponse> {
    const memberships = await this.users.memberships(user.id);
    const { token } = await this.sessions.open({ userId: user.id, email: user.email, name: user.name, platformRole: user.platformRole, orgMemberships: memberships }, method);
    await this.users.recordLogin(user.id);
    await this.audit.record({ action: 'auth.login', userId: user.id, resourceId: user.id, meta: { method } });
    return { token, user: await this.toUserDto(user, memberships) };
  }

  async toUserDto(user: UserShape, memberships?: Awaited<ReturnType<UsersService['memberships']>>): Promise<UserDto> {
    const ms = memberships ?? (await this.users.memberships(user.id));
    const orgs = ms.length > 0 ? await this.orgs.summaries(ms.map((m) => m.orgId)) : new Map<string, OrgSummary>();
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      platformRole: user.platformRole,
      status: user.status,
      totpEnabled: user.totpEnabled,
      orgMemberships: ms.map((m) => ({ orgId: m.orgId, orgRole: m.orgRole, orgSlug: orgs.get(m.orgId)?.slug, orgName: orgs.get(m.orgId)?.legalName })),
      createdAt: user.createdAt.toISOString(),
    };
  }

  private assertActive(user: UserRow): void {
    if (user.status !== 'active') throw AppError.unauthorized(`This account is ${user.status}`);
  }

  /** The budget of wrong sign-in guesses of an address from one client IP. */
  private signInBudget(email: string, ip: string, event: GuessBudget['event'], fields: Record<string, unknown>): GuessBudget {
    return {
      limiter: this.loginFailures,
      key: `${email}|${ip}`,
      event,
      fields: { email, ip, ...fields },
      lockedMessage: 'Too many failed sign-ins for this account from your address',
    };
  }

  /** A wrong second factor counts as a failed sign-in of the address from that IP (the same 10 per 15 minutes). */
  private async requireSecondFactor(user: UserRow, factor: SecondFactor, ip: string, method: string, wrong: () => AppError, onWrong?: () => Promise<void>): Promise<void> {
    if (!user.totpEnabled) return;
    await checkGuess(
      this.signInBudget(user.email, ip, 'second_factor_failed', { userId: user.id, method }),
      async () => {
        if (await this.twoFactor.check(user, factor)) return true;
        await onWrong?.();
        return false;
      },
      wrong,
    );
  }
}
