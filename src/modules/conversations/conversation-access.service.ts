import { Injectable } from '@nestjs/common';
import { ORG_WIDE_ROLES, type PlatformRole } from '../../contracts/roles.js';
import { memberOrgId } from '../../platform/auth/org-scope.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AppError } from '../../platform/errors/app-error.js';
import { ExpertsService } from '../experts/index.js';
import { isClientViewer, reaches, type Reach } from './conversations.access.js';
import { ConversationsRepository } from './conversations.repository.js';
import type { ConversationRow } from './conversations.tables.js';

/**
 * Who reaches which conversations, from the verified caller only: org-wide roles every org,
 * client roles their own orgs, Experts what their grants cover. Anything else reads as 404.
 */
@Injectable()
export class ConversationAccess {
  constructor(
    private readonly repo: ConversationsRepository,
    private readonly experts: ExpertsService,
  ) {}

  async reachOf(principal: Principal): Promise<Reach> {
    if ((ORG_WIDE_ROLES as readonly PlatformRole[]).includes(principal.platformRole)) return { kind: 'platform_wide' };
    if (principal.platformRole === 'expert') return { kind: 'grants', grants: await this.experts.coverageOf(principal.userId) };
    if (isClientViewer(principal)) return { kind: 'member', orgIds: principal.orgMemberships.map((m) => m.orgId) };
    return { kind: 'member', orgIds: [] };
  }

  /** The thread, when the caller may see it; 404 otherwise (never reveal another org's row). */
  async thread(principal: Principal, conversationId: string): Promise<ConversationRow> {
    const row = await this.repo.findVisible(await this.reachOf(principal), conversationId);
    if (!row) throw AppError.notFound('Conversation');
    return row;
  }

  /** Whether the caller reaches an org (or one Specialist of it) at all. */
  async reachesOrg(principal: Principal, orgId: string, specialistId?: string): Promise<boolean> {
    const reach = await this.reachOf(principal);
    if (reach.kind === 'grants' && specialistId === undefined) return reach.grants.some((g) => g.orgId === orgId);
    return reaches(reach, { orgId, specialistId: specialistId ?? '' });
  }

  /**
   * The org a list or a search names (`?orgId=`): one the caller reaches, else 404 like any other
   * org's row (an Expert's list of an org no grant covers is not an empty page).
   */
  async namedOrg(principal: Principal, orgId: string | undefined): Promise<string | undefined> {
    if (orgId === undefined) return undefined;
    if (isClientViewer(principal)) return memberOrgId(principal, orgId);
    if (!(await this.reachesOrg(principal, orgId))) throw AppError.notFound('Organization');
    return orgId;
  }

  /** The join_conversation check of the socket gateway: the thread's org when the caller may follow it, else null. */
  async followableOrg(principal: Principal, conversationId: string): Promise<string | null> {
    return (await this.repo.findVisible(await this.reachOf(principal), conversationId))?.orgId ?? null;
  }
}
