import { Inject, Injectable } from '@nestjs/common';
import type { InviteMemberInput, Member, MemberInvitation } from '../../contracts/admin.js';
import { ORG_WIDE_ROLES, isClientRole, isInternalRole, type OrgRole, type PlatformRole } from '../../contracts/roles.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { memberScope } from '../../platform/auth/org-scope.js';
import type { Principal } from '../../platform/auth/principal.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { Clock } from '../../platform/clock/clock.js';
import { randomToken } from '../../platform/crypto/crypto.js';
import { KeyedHash } from '../../platform/crypto/keyed-hash.js';
import { DbService } from '../../platform/db/db.service.js';
import { requestScope, unscopedOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { AppError } from '../../platform/errors/app-error.js';
import { decodeCursor, pageOf } from '../../platform/http/pagination.js';
import { composeMail } from '../../platform/mail/mail-template.js';
import { MailService, type MailMessage } from '../../platform/mail/mail.service.js';
import { RateLimitService, type Limiter } from '../../platform/rate-limit/rate-limit.service.js';
import { OrgsService } from '../orgs/index.js';
import { UsersService, clientRoleFor, type OrgMemberRecord } from '../users/index.js';
import { refused } from './admin.errors.js';
import type { OrgMemberInvitationRow } from './admin.tables.js';
import { OrgMemberInvitationsRepository } from './org-member-invitations.repository.js';
import { INVITATION_TTL_MS, INVITES_PER_ORG_PER_HOUR, MEMBER_MESSAGES, inviteRefusal, removalRefusal, roleChangeRefusal, transferRefusal, type ActorStanding } from './org-members.rules.js';

/** Internal roles that read any org's members; only a SuperAdmin changes them. */
const READ_ANY_ORG: readonly PlatformRole[] = ORG_WIDE_ROLES;
const MANAGE_ANY_ORG: readonly PlatformRole[] = ['superadmin'];

export function toMember(m: OrgMemberRecord): Member {
  return {
    id: m.userId,
    userId: m.userId,
    email: m.email,
    name: m.name,
    platformRole: m.platformRole,
    status: m.status,
    orgId: m.orgId,
    orgRole: m.orgRole,
    joinedAt: m.joinedAt.toISOString(),
  };
}

const alreadyMember = () => AppError.conflict(MEMBER_MESSAGES.alreadyMember, { field: 'email' });

/**
 * Members of an org (spec 4.6): the list, invitations, roles up to Admin, removal and the
 * transfer of ownership; an org always keeps at least one owner.
 */
@Injectable()
export class OrgMembersService {
  private readonly inviteLimit: Limiter;

  constructor(
    private readonly users: UsersService,
    private readonly orgs: OrgsService,
    private readonly mail: MailService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    private readonly invitations: OrgMemberInvitationsRepository,
    private readonly hash: KeyedHash,
    private readonly clock: Clock,
    rateLimits: RateLimitService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.inviteLimit = rateLimits.limiter({ name: 'member-invites', points: INVITES_PER_ORG_PER_HOUR, durationS: 3600 });
  }

  /** Oldest membership first (joined, then membership id), keyset-paginated. */
  async list(principal: Principal, requestedOrgId: string | undefined, page: { limit: number; cursor?: string }): Promise<{ items: Member[]; nextCursor: string | null }> {
    const after = decodeCursor(page.cursor);
    const { scope } = await this.standing(principal, requestedOrgId, READ_ANY_ORG);
    const rows = await this.users.membersOfOrg(scope, { limit: page.limit, after });
    return pageOf(rows, page.limit, (m) => ({ at: m.joinedAt, id: m.membershipId }), toMember);
  }

  /**
   * Invites someone with the role given (API-MAP "Sessions, sockets and hardening"). A new address
   * becomes a user who joins at once and is mailed how to sign in. An address that already belongs
   * to a user (of any org, or internal) changes nothing: that user is mailed an invitation to
   * accept, signed in as themselves. Both answer alike, so the answer tells nothing about the address.
   */
  async invite(principal: Principal, input: InviteMemberInput): Promise<Member> {
    const { scope, actor } = await this.standing(principal, input.orgId, MANAGE_ANY_ORG);
    const { orgId } = scope;
    // Spec 4.6: inviting is for org_admin users (with an admin or owner role in the org).
    if (actor !== 'staff' && principal.platformRole !== 'org_admin') throw AppError.forbidden(MEMBER_MESSAGES.notAllowed);
    const refusal = inviteRefusal({ actor, orgRole: input.orgRole });
    if (refusal) throw refused(refusal);
    await this.inviteLimit.consumeOrThrow(`org:${orgId}`, MEMBER_MESSAGES.tooManyInvites);
    const org = await this.orgs.get(orgId);
    const inviter = principal.name || principal.email;
    const outcome = await this.dbService.transaction(async () => {
      const existing = await this.users.findByEmail(input.email);
      if (!existing) {
        const user = await this.users.create({ email: input.email, name: input.name ?? '', platformRole: 'org_member' });
        await this.users.addMembership(scope, user.id, input.orgRole);
        await this.users.syncClientRole(user.id);
        await this.mail.send(
          composeMail({
            to: user.email,
            subject: `You have been invited to ${org.legalName}`,
            paragraphs: [
              `${inviter} invited you to join ${org.legalName} on Client Organization Service.`,
              ['Sign in at ', { href: `${this.config.publicUrl}/login` }, ` with this address (${user.email}): choose "Email code" and we will mail you a sign-in code.`],
            ],
          }),
        );
        return { userId: user.id, joined: true };
      }
      if (await this.users.membership(scope, existing.id)) throw alreadyMember();
      const earlier = await this.invitations.find(scope, existing.id);
      if (earlier && !earlier.acceptedAt && earlier.expiresAt > this.clock.now()) throw alreadyMember();
      const token = randomToken(32);
      const invitation = await this.invitations.put(scope, {
        userId: existing.id,
        email: existing.email,
        orgRole: input.orgRole,
        invitedBy: principal.userId,
        tokenHash: this.hash.of(token),
        expiresAt: new Date(this.clock.now().getTime() + INVITATION_TTL_MS),
      });
      // Internal users never join an org; the invitation only keeps the answers alike.
      if (isClientRole(existing.platformRole)) await this.mail.send(this.invitationMail(existing.email, inviter, org.legalName, input.orgRole, token, invitation.expiresAt));
      return { userId: existing.id, joined: false, invitationId: invitation.id };
    });
    await this.record(principal, 'org.member.invited', outcome.userId, orgId, { orgRole: input.orgRole, ...(outcome.joined ? {} : { invitationId: outcome.invitationId, pending: true }) });
    if (outcome.joined) return this.member(scope, outcome.userId);
    // The same answer a new address gets, with nothing of the existing user in it.
    return {
      id: outcome.invitationId!,
      userId: outcome.invitationId!,
      email: input.email,
      name: input.name ?? '',
      platformRole: clientRoleFor([input.orgRole]),
      status: 'active',
      orgId,
      orgRole: input.orgRole,
      joinedAt: this.clock.now().toISOString(),
    };
  }

  /** The invitation of a mailed token, for the user it was sent to only (anyone else: 404). */
  async invitation(principal: Principal, token: string): Promise<MemberInvitation> {
    const invitation = await this.openInvitation(principal, token);
    const org = await this.orgs.get(invitation.orgId);
    return { orgId: org.id, orgName: org.legalName, orgRole: invitation.orgRole, email: invitation.email, expiresAt: invitation.expiresAt.toISOString() };
  }

  /** The invited user joins the org with the invited role; the token works once. */
  async acceptInvitation(principal: Principal, token: string): Promise<Member> {
    if (principal.impersonatorId) throw AppError.forbidden(MEMBER_MESSAGES.acceptedByUser);
    const invitation = await this.openInvitation(principal, token);
    if (isInternalRole(principal.platformRole)) throw AppError.conflict(MEMBER_MESSAGES.internalUser);
    const scope = unscopedOrg(invitation.orgId, 'the org a member invitation token names, accepted by its invited user');
    await this.dbService.transaction(async () => {
      if (!(await this.invitations.markAccepted(scope, invitation.id, this.clock.now()))) throw new AppError('invite_used', MEMBER_MESSAGES.invitationUsed);
      if (await this.users.membership(scope, invitation.userId)) return;
      await this.users.addMembership(scope, invitation.userId, invitation.orgRole);
      // The user's own choice: their client role follows their org roles, as for every member.
      await this.users.syncClientRole(invitation.userId);
    });
    await this.record(principal, 'org.member.invitation_accepted', invitation.userId, invitation.orgId, { orgRole: invitation.orgRole, invitationId: invitation.id });
    return this.member(scope, invitation.userId);
  }

  private async openInvitation(principal: Principal, token: string): Promise<OrgMemberInvitationRow> {
    const invitation = await this.invitations.unscopedFindByTokenHash(this.hash.candidates(token));
    // Bound to the user and the address it was sent to: anyone else learns nothing of it.
    if (!invitation || invitation.userId !== principal.userId || invitation.email !== principal.email) throw AppError.notFound('Invitation');
    if (invitation.acceptedAt) throw new AppError('invite_used', MEMBER_MESSAGES.invitationUsed);
    if (invitation.expiresAt <= this.clock.now()) throw new AppError('invite_expired', MEMBER_MESSAGES.invitationExpired);
    return invitation;
  }

  private invitationMail(to: string, inviter: string, orgName: string, orgRole: OrgRole, token: string, expiresAt: Date): MailMessage {
    return composeMail({
      to,
      subject: `You have been invited to ${orgName}`,
      sensitive: true,
      paragraphs: [
        `${inviter} invited you to join ${orgName} on Client Organization Service as ${orgRole === 'admin' ? 'an admin' : `a ${orgRole}`}.`,
        ['Sign in with this address, then accept the invitation: ', { href: `${this.config.publicUrl}/invitations/accept?token=${token}` }],
        `Nothing changes until you accept. The link works once and expires on ${expiresAt.toISOString().slice(0, 10)}. If you did not expect this, ignore this email.`,
      ],
    });
  }

  async setRole(principal: Principal, userId: string, input: { orgRole: OrgRole; orgId?: string }): Promise<Member> {
    const { scope, actor } = await this.standing(principal, input.orgId, MANAGE_ANY_ORG);
    const from = await this.dbService.transaction(async () => {
      const target = await this.lockedMembership(scope, userId);
      const refusal = roleChangeRefusal({ actor, targetRole: target.orgRole, newRole: input.orgRole, owners: await this.users.countOwners(scope) });
      if (refusal) throw refused(refusal);
      if (target.orgRole !== input.orgRole) await this.users.setOrgRole(scope, userId, input.orgRole);
      return target.orgRole;
    });
    if (from !== input.orgRole) await this.record(principal, 'org.member.role_updated', userId, scope.orgId, { changes: { orgRole: { from, to: input.orgRole } } });
    return this.member(scope, userId);
  }

  async remove(principal: Principal, orgId: string, userId: string): Promise<void> {
    const { scope, actor } = await this.standing(principal, orgId, MANAGE_ANY_ORG);
    const role = await this.dbService.transaction(async () => {
      const target = await this.lockedMembership(scope, userId);
      const refusal = removalRefusal({ actor, targetRole: target.orgRole, owners: await this.users.countOwners(scope) });
      if (refusal) throw refused(refusal);
      await this.users.removeMembership(scope, userId);
      return target.orgRole;
    });
    await this.record(principal, 'org.member.removed', userId, orgId, { orgRole: role });
  }

  /** The owner hands the org to another member and stays on as an admin. */
  async transferOwnership(principal: Principal, scope: OrgScope, newOwnerId: string): Promise<{ items: Member[]; nextCursor: null }> {
    const refusal = transferRefusal({ actorId: principal.userId, newOwnerId });
    if (refusal) throw refused(refusal);
    await this.dbService.transaction(async () => {
      await this.lockedMembership(scope, newOwnerId);
      const own = await this.users.membership(scope, principal.userId);
      if (own?.orgRole !== 'owner') throw AppError.forbidden(MEMBER_MESSAGES.notAllowed);
      await this.users.setOrgRole(scope, newOwnerId, 'owner');
      await this.users.setOrgRole(scope, principal.userId, 'admin');
    });
    await this.record(principal, 'org.ownership_transferred', newOwnerId, scope.orgId, { from: principal.userId, to: newOwnerId });
    return { items: (await this.users.membersOfOrg(scope)).map(toMember), nextCursor: null };
  }

  /**
   * The org a request acts on and the caller's standing in it: internal staff name any org
   * (which must exist); everyone else acts on an org of theirs (another org answers 404).
   */
  private async standing(principal: Principal, requestedOrgId: string | undefined, staffRoles: readonly PlatformRole[]): Promise<{ scope: OrgScope; actor: ActorStanding }> {
    if (staffRoles.includes(principal.platformRole) && requestedOrgId) {
      await this.orgs.get(requestedOrgId);
      return { scope: requestScope(requestedOrgId, 'org_wide_role'), actor: 'staff' };
    }
    const scope = memberScope(principal, requestedOrgId);
    return { scope, actor: principal.orgMemberships.find((m) => m.orgId === scope.orgId)!.orgRole };
  }

  private async lockedMembership(scope: OrgScope, userId: string) {
    await this.users.lockMemberships(scope);
    const target = await this.users.membership(scope, userId);
    if (!target) throw AppError.notFound('Member');
    return target;
  }

  private async member(scope: OrgScope, userId: string): Promise<Member> {
    const found = (await this.users.membersOfOrg(scope)).find((m) => m.userId === userId);
    if (!found) throw AppError.notFound('Member');
    return toMember(found);
  }

  private record(principal: Principal, action: string, userId: string, orgId: string, meta: Record<string, unknown>): Promise<void> {
    return this.audit.record({ action, userId: principal.userId, resourceId: userId, orgId, impersonatorId: principal.impersonatorId, meta });
  }
}
