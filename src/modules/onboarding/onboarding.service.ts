import { Inject, Injectable } from '@nestjs/common';
import type { z } from 'zod';
import type { TokenResponse } from '../../contracts/auth.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { Clock } from '../../platform/clock/clock.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { SecretBox, randomToken, sha256Hex } from '../../platform/crypto/crypto.js';
import { DbService } from '../../platform/db/db.service.js';
import { unscopedOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { AppError } from '../../platform/errors/app-error.js';
import { decodeCursor } from '../../platform/http/pagination.js';
import { composeMail } from '../../platform/mail/mail-template.js';
import { MailService } from '../../platform/mail/mail.service.js';
import { securityEvent } from '../../platform/observability/security-log.js';
import { RateLimitService, rateLimitError, type Limiter } from '../../platform/rate-limit/rate-limit.service.js';
import { AuthService, OtpService } from '../auth/index.js';
import { OrgsService, toOrgDto, type OrgRow } from '../orgs/index.js';
import { AssignmentsService, SpecialistsService } from '../specialists/index.js';
import { UsersService } from '../users/index.js';
import { InvitesRepository } from './onboarding.repository.js';
import type { CompleteOnboardingSchema } from './onboarding.schemas.js';
import type { OrgInviteRow } from './onboarding.tables.js';

export const INVITE_TTL_MS = 7 * 24 * 60 * 60_000;
/** Wrong onboarding codes per invite, whatever the number of codes mailed, until the AM sends the invite again. */
export const INVITE_OTP_MAX_WRONG = 5;

type CompleteInput = z.infer<typeof CompleteOnboardingSchema>;

/**
 * The client side of onboarding (spec 3.2, 4.2, 4.3): the invite and its link, the onboarding
 * code (single use), and Phase 2 completion in one transaction.
 */
@Injectable()
export class OnboardingService {
  private readonly codeMails: Limiter;

  constructor(
    private readonly invites: InvitesRepository,
    private readonly orgs: OrgsService,
    private readonly users: UsersService,
    private readonly assignments: AssignmentsService,
    private readonly specialists: SpecialistsService,
    private readonly auth: AuthService,
    private readonly otp: OtpService,
    private readonly mail: MailService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    rateLimits: RateLimitService,
  ) {
    // Per invite: 5 onboarding-code mails in 15 minutes, then 429.
    this.codeMails = rateLimits.limiter({ name: 'invite-otp-send', points: 5, durationS: 15 * 60 });
  }

  private link(token: string): string {
    return `${this.config.publicUrl}/onboarding/start?token=${encodeURIComponent(token)}`;
  }

  /** The org's one invite, created with its token on first need (the link can be copied before sending). */
  private async ensureInvite(scope: OrgScope): Promise<OrgInviteRow> {
    const existing = await this.invites.findByOrg(scope);
    if (existing) return existing;
    const token = randomToken(32);
    return this.invites.ensure(scope, { tokenSealed: this.secrets.seal(token), tokenHash: sha256Hex(token) });
  }

  async onboardingLink(scope: OrgScope): Promise<{ onboardingUrl: string; expiresAt: string | null }> {
    await this.orgs.get(scope.orgId);
    const invite = await this.ensureInvite(scope);
    return { onboardingUrl: this.link(this.secrets.open(invite.tokenSealed)), expiresAt: invite.expiresAt?.toISOString() ?? null };
  }

  /**
   * sendOrgInvite(orgId, trialEndDate?, startDate?): the gate re-checked, the org pending the
   * client, the invited admin and an owner membership, a 7-day window (a resend extends it and
   * keeps the one link), and the invite email.
   */
  async sendInvite(actor: Principal, scope: OrgScope, input: { trialEndDate?: string | null; startDate?: string | null }) {
    const orgId = scope.orgId;
    const { org, invite, token, resend } = await this.dbService.transaction(async () => {
      const before = await this.orgs.findById(orgId);
      const org = await this.orgs.markInvited(orgId, input);
      const admin = await this.ensureAdmin(scope, org);
      const invite = await this.ensureInvite(scope);
      if (invite.completedAt) throw AppError.conflict('The client has already completed onboarding');
      const now = this.clock.now();
      // Sent again: the client gets a fresh budget of wrong onboarding codes.
      const updated = await this.invites.update(scope, invite.id, { adminUserId: admin.id, sentAt: now, expiresAt: new Date(now.getTime() + INVITE_TTL_MS), otpFailedAttempts: 0 });
      const token = this.secrets.open(updated.tokenSealed);
      await this.mail.send(
        composeMail({
          to: org.adminEmail,
          subject: `You're invited to set up ${org.legalName}`,
          sensitive: true,
          paragraphs: [
            'Hello,',
            `Your account manager has set up ${org.legalName}. Confirm your company details, choose your password and meet your Specialist:`,
            { href: this.link(token) },
            `This link expires on ${updated.expiresAt!.toISOString().slice(0, 10)}.`,
          ],
        }),
      );
      return { org, invite: updated, token, resend: before?.status === 'pending_client_confirmation' };
    });
    await this.audit.record({ action: resend ? 'org.invite_resent' : 'org.invite_sent', userId: actor.userId, resourceId: orgId, orgId, impersonatorId: actor.impersonatorId });
    return { org: toOrgDto(org), onboardingUrl: this.link(token), expiresAt: invite.expiresAt!.toISOString() };
  }

  /** The invited admin user (org_admin) and their owner membership exist from the invite on. */
  private async ensureAdmin(scope: OrgScope, org: OrgRow) {
    const existing = await this.users.findByEmail(org.adminEmail);
    if (existing && !['org_admin', 'org_member'].includes(existing.platformRole)) {
      throw AppError.conflict('The admin email belongs to an internal user');
    }
    const admin = existing ?? (await this.users.create({ email: org.adminEmail, platformRole: 'org_admin' }));
    await this.users.addMembership(scope, admin.id, 'owner');
    return admin;
  }

  /**
   * The org's admin email changed (inside that transaction). An invite not sent yet goes to the new
   * address when it is; one already sent and not completed follows it: a new token, so the link
   * mailed to the former address opens nothing (the AM sends the invite again to mail the new one),
   * the onboarding code unspent and its guesses reset, and the new address's user as the invited
   * admin with the owner membership. The former admin loses the membership the invite gave, at once
   * (their open sessions and sockets included).
   */
  async followAdminEmail(scope: OrgScope, org: OrgRow): Promise<void> {
    const invite = await this.invites.findByOrg(scope);
    if (!invite?.sentAt || invite.completedAt) return;
    const admin = await this.ensureAdmin(scope, org);
    const former = invite.adminUserId;
    const token = randomToken(32);
    await this.invites.update(scope, invite.id, { adminUserId: admin.id, tokenSealed: this.secrets.seal(token), tokenHash: sha256Hex(token), otpUsedAt: null, otpFailedAttempts: 0 });
    if (former && former !== admin.id && (await this.users.membership(scope, former))) await this.users.removeMembership(scope, former);
  }

  /** The invite of a token, refused when unknown (404), expired or done (410). */
  private async open(token: string, opts: { forSignIn?: boolean } = {}): Promise<OrgInviteRow> {
    const invite = await this.invites.unscopedFindByTokenHash(sha256Hex(token));
    if (!invite || !invite.sentAt || !invite.expiresAt) throw AppError.notFound('Invite');
    if (invite.completedAt) throw new AppError('invite_used', 'This invite has already been used');
    if (opts.forSignIn && invite.otpUsedAt) throw new AppError('invite_used', 'This invite has already been used to sign in');
    if (invite.expiresAt.getTime() <= this.clock.now().getTime()) throw new AppError('invite_expired', 'This invite has expired; ask your account manager to resend it');
    return invite;
  }

  async sendInviteOtp(token: string, ip: string): Promise<void> {
    const invite = await this.open(token, { forSignIn: true });
    const budget = await this.codeMails.consume(invite.id);
    if (!budget.allowed) {
      securityEvent('otp_send_limited', { inviteId: invite.id, orgId: invite.orgId, ip });
      throw rateLimitError(budget, 'Too many onboarding codes requested for this invite');
    }
    const org = (await this.orgs.findById(invite.orgId))!;
    await this.dbService.transaction(async () => {
      const code = await this.otp.issue({ email: org.adminEmail, purpose: 'invite', subjectId: invite.id });
      await this.mail.send(
        composeMail({ to: org.adminEmail, subject: `Your ${org.legalName} onboarding code: ${code}`, sensitive: true, paragraphs: [`Your onboarding code is ${code}. It expires in 10 minutes.`] }),
      );
    });
  }

  /**
   * Signs the invited admin in once per invite; a second verify answers 410 invite_used. Every guess
   * is counted on the invite before the compare (so parallel guesses cannot pass the limit) and a
   * right one given back: after 5 wrong codes the invite answers 429 until the AM sends it again.
   */
  async verifyInviteOtp(token: string, code: string, ip: string): Promise<TokenResponse> {
    const invite = await this.open(token, { forSignIn: true });
    const org = (await this.orgs.findById(invite.orgId))!;
    const scope = inviteScope(invite);
    const who = { inviteId: invite.id, orgId: invite.orgId, userId: invite.adminUserId, ip, method: 'invite_otp' };
    const attempts = await this.invites.takeOtpAttempt(scope, invite.id, INVITE_OTP_MAX_WRONG);
    if (attempts === undefined) {
      securityEvent('otp_failed', { ...who, reason: 'locked_out' });
      throw rateLimitError(
        { allowed: false, limit: INVITE_OTP_MAX_WRONG, remaining: 0, resetAtMs: invite.expiresAt!.getTime() },
        'Too many wrong onboarding codes: ask your account manager to send the invite again',
      );
    }
    try {
      await this.otp.redeem({ email: org.adminEmail, purpose: 'invite', subjectId: invite.id }, code);
    } catch (err) {
      securityEvent('otp_failed', who);
      if (attempts === INVITE_OTP_MAX_WRONG) securityEvent('lockout', { ...who, after: 'otp_failed' });
      throw err;
    }
    await this.invites.returnOtpAttempt(scope, invite.id);
    if (!(await this.invites.markOtpUsed(scope, invite.id, this.clock.now()))) throw new AppError('invite_used', 'This invite has already been used to sign in');
    const admin = invite.adminUserId ? await this.users.findById(invite.adminUserId) : undefined;
    if (!admin) throw AppError.notFound('Invite');
    return this.auth.startSession(admin, 'invite_otp');
  }

  async view(token: string) {
    const invite = await this.open(token);
    const org = (await this.orgs.findById(invite.orgId))!;
    const assigned = await this.assignments.list(inviteScope(invite));
    return {
      org: { legalName: org.legalName, slug: org.slug, industry: org.industry, corporateDomains: org.corporateDomains, website: org.website, timezone: org.timezone },
      adminEmail: org.adminEmail,
      expiresAt: invite.expiresAt?.toISOString() ?? null,
      specialistPreassigned: assigned.length > 0,
    };
  }

  /** The subdomain check of Phase 2: the invite's own org is never reported as holding it. */
  async subdomainAvailability(token: string, slug: string) {
    const invite = await this.open(token);
    return this.orgs.slugAvailability(slug, invite.orgId);
  }

  /** The preassigned (primary) Specialist and its rate; 404 when the client picks one. */
  async preassignedSpecialist(token: string) {
    const invite = await this.open(token);
    const assigned = await this.assignments.list(inviteScope(invite));
    const primary = assigned.find((a) => a.isPrimary) ?? assigned[0];
    if (!primary) throw AppError.notFound('Preassigned Specialist');
    // What the client sees of it: never the internal routing address.
    const { id, name, slug, avatarUrl, skillTags } = primary.specialist;
    return { id, name, slug, avatarUrl, skillTags, monthlyRate: primary.rate };
  }

  /** The pool the client picks from when none is preassigned. */
  async pool(token: string, page: { limit: number; cursor?: string }) {
    const after = decodeCursor(page.cursor);
    await this.open(token);
    const { items, nextCursor } = await this.specialists.list({ limit: page.limit, after });
    const previews = items.map((s) => ({
      id: s.id,
      name: s.name,
      slug: s.slug,
      avatarUrl: s.avatarUrl,
      skillTags: s.skillTags,
      monthlyRate: s.monthly_rate_config && { amount: s.monthly_rate_config.base_rate, currency: s.monthly_rate_config.currency, source: 'specialist' as const },
    }));
    return { items: previews, nextCursor };
  }

  /**
   * Phase 2 completion, in one transaction: slug reserved, org active with its trial, the chosen
   * Specialist assigned, the admin's password and name, the invite spent. Then the welcome mails.
   * A failure (the slug race lost) leaves everything as it was: org pending, invite usable.
   */
  async complete(principal: Principal, token: string, input: CompleteInput) {
    const invite = await this.open(token);
    if (!invite.adminUserId || principal.userId !== invite.adminUserId) throw AppError.forbidden('Only the invited admin can complete onboarding');
    const now = this.clock.now();
    const { org, admin } = await this.dbService.transaction(async () => {
      const scope = inviteScope(invite);
      const org = await this.orgs.confirmByClient(principal, scope, { legalName: input.legalName, slug: input.slug }, now);
      const assigned = await this.assignments.list(scope);
      if (assigned.length === 0) {
        if (!input.specialistId) {
          throw new AppError('validation_failed', 'Invalid body', { details: [{ field: 'specialistId', message: 'Pick a Specialist' }] });
        }
        await this.assignments.assign(principal, scope, { specialistId: input.specialistId });
      }
      await this.users.setName(invite.adminUserId!, input.name);
      const admin = await this.users.setPassword(invite.adminUserId!, input.password);
      if (!(await this.invites.markCompleted(scope, invite.id, now))) throw new AppError('invite_used', 'This invite has already been used');
      await this.mail.send(
        composeMail({
          to: admin.email,
          subject: `Welcome to ${org.legalName}'s workspace`,
          paragraphs: [
            [
              `Welcome, ${input.name}! ${org.legalName} is set up${org.trialEndDate ? `; your trial runs until ${org.trialEndDate}` : ''}. Sign in at `,
              { href: `${this.config.publicUrl}/login` },
              '.',
            ],
          ],
        }),
      );
      const am = org.assignedAmId ? await this.users.findById(org.assignedAmId) : undefined;
      if (am) {
        await this.mail.send(
          composeMail({
            to: am.email,
            subject: `${org.legalName} completed onboarding`,
            paragraphs: [`${input.name} (${admin.email}) confirmed ${org.legalName} (${org.slug}). The org is active${org.trialEndDate ? ` with a trial until ${org.trialEndDate}` : ''}.`],
          }),
        );
      }
      return { org, admin };
    });
    await this.audit.record({ action: 'org.onboarding_completed', userId: principal.userId, resourceId: org.id, orgId: org.id, meta: { slug: org.slug } });
    const session = await this.auth.startSession(admin, 'onboarding');
    return { token: session.token, org: toOrgDto(org) };
  }
}

/** The org of an onboarding invite found by its secret token (the token names the org). */
function inviteScope(invite: OrgInviteRow): OrgScope {
  return unscopedOrg(invite.orgId, 'the org an onboarding invite token names');
}
