import { Inject, Injectable } from '@nestjs/common';
import type { InviteMemberInput, Member } from '../../contracts/admin.js';
import { CLIENT_ROLES, ORG_WIDE_ROLES, type OrgRole, type PlatformRole } from '../../contracts/roles.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { memberOrgId } from '../../platform/auth/org-scope.js';
import type { Principal } from '../../platform/auth/principal.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { MailService } from '../../platform/mail/mail.service.js';
import { OrgsService } from '../orgs/index.js';
import { UsersService, type OrgMemberRecord } from '../users/index.js';
import { refused } from './admin.errors.js';
import { MEMBER_MESSAGES, inviteRefusal, removalRefusal, roleChangeRefusal, transferRefusal, type ActorStanding } from './org-members.rules.js';

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

/**
 * Members of an org (spec 4.6): the list, invitations, roles up to Admin, removal and the
 * transfer of ownership; an org always keeps at least one owner.
 */
@Injectable()
export class OrgMembersService {
  constructor(
    private readonly users: UsersService,
    private readonly orgs: OrgsService,
    private readonly mail: MailService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(principal: Principal, requestedOrgId?: string): Promise<{ items: Member[]; nextCursor: null }> {
    const { orgId } = await this.standing(principal, requestedOrgId, READ_ANY_ORG);
    return { items: (await this.users.membersOfOrg(orgId)).map(toMember), nextCursor: null };
  }

  /** A new user (or an existing client user) joins the org with the role given, and gets a mail. */
  async invite(principal: Principal, input: InviteMemberInput): Promise<Member> {
    const { orgId, actor } = await this.standing(principal, input.orgId, MANAGE_ANY_ORG);
    // Spec 4.6: inviting is for org_admin users (with an admin or owner role in the org).
    if (actor !== 'staff' && principal.platformRole !== 'org_admin') throw AppError.forbidden(MEMBER_MESSAGES.notAllowed);
    const refusal = inviteRefusal({ actor, orgRole: input.orgRole });
    if (refusal) throw refused(refusal);
    const org = await this.orgs.get(orgId);
    const userId = await this.dbService.transaction(async () => {
      const existing = await this.users.findByEmail(input.email);
      if (existing && !(CLIENT_ROLES as readonly string[]).includes(existing.platformRole)) throw AppError.conflict('This email belongs to an internal user', { field: 'email' });
      if (existing && (await this.users.membership(orgId, existing.id))) throw AppError.conflict('Already a member of this organization', { field: 'email' });
      const user = existing ?? (await this.users.create({ email: input.email, name: input.name ?? '', platformRole: 'org_member' }));
      await this.users.addMembership(orgId, user.id, input.orgRole);
      await this.users.syncClientRole(user.id);
      await this.mail.send({
        to: user.email,
        subject: `You have been invited to ${org.legalName}`,
        text: [
          `${principal.name || principal.email} invited you to join ${org.legalName} on Client Organization Service.`,
          '',
          `Sign in at ${this.config.publicUrl}/login with this address (${user.email}): choose "Email code" and we will mail you a sign-in code.`,
        ].join('\n'),
      });
      return user.id;
    });
    await this.record(principal, 'org.member.invited', userId, orgId, { orgRole: input.orgRole });
    return this.member(orgId, userId);
  }

  async setRole(principal: Principal, userId: string, input: { orgRole: OrgRole; orgId?: string }): Promise<Member> {
    const { orgId, actor } = await this.standing(principal, input.orgId, MANAGE_ANY_ORG);
    const from = await this.dbService.transaction(async () => {
      const target = await this.lockedMembership(orgId, userId);
      const refusal = roleChangeRefusal({ actor, targetRole: target.orgRole, newRole: input.orgRole, owners: await this.users.countOwners(orgId) });
      if (refusal) throw refused(refusal);
      if (target.orgRole !== input.orgRole) await this.users.setOrgRole(orgId, userId, input.orgRole);
      return target.orgRole;
    });
    if (from !== input.orgRole) await this.record(principal, 'org.member.role_updated', userId, orgId, { changes: { orgRole: { from, to: input.orgRole } } });
    return this.member(orgId, userId);
  }

  async remove(principal: Principal, orgId: string, userId: string): Promise<void> {
    const { actor } = await this.standing(principal, orgId, MANAGE_ANY_ORG);
    const role = await this.dbService.transaction(async () => {
      const target = await this.lockedMembership(orgId, userId);
      const refusal = removalRefusal({ actor, targetRole: target.orgRole, owners: await this.users.countOwners(orgId) });
      if (refusal) throw refused(refusal);
      await this.users.removeMembership(orgId, userId);
      return target.orgRole;
    });
    await this.record(principal, 'org.member.removed', userId, orgId, { orgRole: role });
  }

  /** The owner hands the org to another member and stays on as an admin. */
  async transferOwnership(principal: Principal, orgId: string, newOwnerId: string): Promise<{ items: Member[]; nextCursor: null }> {
    const refusal = transferRefusal({ actorId: principal.userId, newOwnerId });
    if (refusal) throw refused(refusal);
    await this.dbService.transaction(async () => {
      await this.lockedMembership(orgId, newOwnerId);
      const own = await this.users.membership(orgId, principal.userId);
      if (own?.orgRole !== 'owner') throw AppError.forbidden(MEMBER_MESSAGES.notAllowed);
      await this.users.setOrgRole(orgId, newOwnerId, 'owner');
      await this.users.setOrgRole(orgId, principal.userId, 'admin');
    });
    await this.record(principal, 'org.ownership_transferred', newOwnerId, orgId, { from: principal.userId, to: newOwnerId });
    return { items: (await this.users.membersOfOrg(orgId)).map(toMember), nextCursor: null };
  }

  /**
   * The org a request acts on and the caller's standing in it: internal staff name any org
   * (which must exist); everyone else acts on an org of theirs (another org answers 404).
   */
  private async standing(principal: Principal, requestedOrgId: string | undefined, staffRoles: readonly PlatformRole[]): Promise<{ orgId: string; actor: ActorStanding }> {
    if (staffRoles.includes(principal.platformRole) && requestedOrgId) {
      await this.orgs.get(requestedOrgId);
      return { orgId: requestedOrgId, actor: 'staff' };
    }
    const orgId = memberOrgId(principal, requestedOrgId);
    return { orgId, actor: principal.orgMemberships.find((m) => m.orgId === orgId)!.orgRole };
  }

  private async lockedMembership(orgId: string, userId: string) {
    await this.users.lockMemberships(orgId);
    const target = await this.users.membership(orgId, userId);
    if (!target) throw AppError.notFound('Member');
    return target;
  }

  private async member(orgId: string, userId: string): Promise<Member> {
    const found = (await this.users.membersOfOrg(orgId)).find((m) => m.userId === userId);
    if (!found) throw AppError.notFound('Member');
    return toMember(found);
  }

  private record(principal: Principal, action: string, userId: string, orgId: string, meta: Record<string, unknown>): Promise<void> {
    return this.audit.record({ action, userId: principal.userId, resourceId: userId, orgId, impersonatorId: principal.impersonatorId, meta });
  }
}
