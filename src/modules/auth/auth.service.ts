import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import type { MeResponse, TokenResponse, UserDto } from '../../contracts/auth.js';
import { landingFor } from '../../contracts/roles.js';
import type { Principal } from '../../platform/auth/principal.js';
import { TokenService } from '../../platform/auth/token.service.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { safeEqual } from '../../platform/crypto/crypto.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { MailService } from '../../platform/mail/mail.service.js';
import { RateLimitService, rateLimitError, type Limiter } from '../../platform/rate-limit/rate-limit.service.js';
import { OrgsService, type OrgSummary } from '../orgs/index.js';
import { UsersService, type UserRow } from '../users/index.js';
import { OtpService } from './otp.service.js';
import { TwoFactorService, type SecondFactor } from './two-factor.service.js';

const BOOTSTRAP_LOCK = 7_410_222;

type UserShape = Pick<UserRow, 'id' | 'email' | 'name' | 'platformRole' | 'status' | 'totpEnabled' | 'createdAt'>;

/** Sign-in methods and the session token (spec 4.3, 5). */
@Injectable()
export class AuthService {
  private readonly otpRequests: Limiter;
  private readonly loginFailures: Limiter;

  constructor(
    private readonly users: UsersService,
    private readonly orgs: OrgsService,
    private readonly tokens: TokenService,
    private readonly otp: OtpService,
    private readonly mail: MailService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    private readonly twoFactor: TwoFactorService,
    rateLimits: RateLimitService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    // Per address: a code mail at most 5 times in 15 minutes (the endpoint still answers 204).
    this.otpRequests = rateLimits.limiter({ name: 'otp-request', points: 5, durationS: 15 * 60 });
    // Per address: 10 wrong passwords in 15 minutes, then 429 until the window ends.
    this.loginFailures = rateLimits.limiter({ name: 'login-failure', points: 10, durationS: 15 * 60 });
  }

  async login(input: { email: string; password: string } & SecondFactor): Promise<TokenResponse> {
    const failures = await this.loginFailures.peek(input.email);
    if (failures.used >= failures.limit) {
      throw rateLimitError({ allowed: false, limit: failures.limit, remaining: 0, resetAtMs: failures.resetAtMs ?? Date.now() + 1000 }, 'Too many failed sign-ins for this address');
    }
    const user = await this.users.findByEmail(input.email);
    const ok = await this.users.checkPassword(user, input.password);
    if (!user || !ok) {
      await this.loginFailures.consume(input.email);
      throw AppError.unauthorized('Invalid email or password');
    }
    this.assertActive(user);
    await this.requireSecondFactor(user, input);
    return this.startSession(user, user.totpEnabled ? 'password+2fa' : 'password');
  }

  /** Always succeeds from the caller's view; a code goes out only to an active user. */
  async requestOtp(email: string): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user || user.status !== 'active') return;
    const budget = await this.otpRequests.consume(email);
    if (!budget.allowed) return;
    await this.dbService.transaction(async () => {
      const code = await this.otp.issue({ email, purpose: 'login' });
      await this.mail.send({
        to: email,
        subject: `Your sign-in code: ${code}`,
        sensitive: true,
        text: `Your sign-in code is ${code}. It expires in 10 minutes. If you did not ask for it, ignore this email.`,
      });
    });
  }

  /** With two-factor on, the emailed code is kept until the second factor comes with it. */
  async verifyOtp(email: string, code: string, factor: SecondFactor = {}): Promise<TokenResponse> {
    const user = await this.users.findByEmail(email);
    if (!user) throw AppError.unauthorized('Invalid or expired code');
    if (user.totpEnabled && !factor.totpCode && !factor.recoveryCode) throw new AppError('totp_required', 'Two-factor code required');
    await this.otp.redeem({ email, purpose: 'login' }, code);
    this.assertActive(user);
    await this.requireSecondFactor(user, factor);
    return this.startSession(user, user.totpEnabled ? 'email_otp+2fa' : 'email_otp');
  }

  /** The caller's own profile name (an empty name clears it); sessions stay valid. */
  async updateMe(principal: Principal, name: string): Promise<MeResponse> {
    const row = await this.users.setName(principal.userId, name);
    return this.me({ ...principal, name: row.name, record: { ...principal.record, name: row.name } });
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

  /** Issues a token for a user who has just proven who they are. */
  async startSession(user: UserRow, method: string): Promise<TokenResponse> {
    const memberships = await this.users.memberships(user.id);
    const token = await this.tokens.sign({
      userId: user.id,
      email: user.email,
      name: user.name,
      platformRole: user.platformRole,
      orgMemberships: memberships,
    });
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

  /** A wrong second factor counts as a failed sign-in of the address (the same 10 per 15 minutes). */
  private async requireSecondFactor(user: UserRow, factor: SecondFactor): Promise<void> {
    if (!user.totpEnabled) return;
    if (await this.twoFactor.check(user, factor)) return;
    await this.loginFailures.consume(user.email);
    throw AppError.unauthorized('Invalid two-factor code');
  }
}
