import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { ORG_WIDE_ROLES, type PlatformRole } from '../../contracts/roles.js';
import { memberOrgId } from '../../platform/auth/org-scope.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AppError } from '../../platform/errors/app-error.js';
import { ExpertsService } from '../experts/index.js';
import { isClientViewer, reaches, type Reach } from './conversations.access.js';
import { ConversationsRepository } from './conversations.repository.js';
import type { ConversationRow } from './conversations.tables.js';

/** What never changes about a thread: its org and its Specialist, the two facts a Reach is decided on. */
export interface ThreadFacts {
  id: string;
  orgId: string;
  specialistId: string;
}

/** Threads whose facts are remembered (about 200 bytes each). */
const FACTS_KEPT = 20_000;

/**
 * Who reaches which conversations, from the verified caller only: org-wide roles every org,
 * client roles their own orgs, Experts what their grants cover. Anything else reads as 404.
 */
@Injectable()
export class ConversationAccess {
  private readonly facts = new LRUCache<string, ThreadFacts>({ max: FACTS_KEPT });

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
    this.remember(row);
    return row;
  }

  /**
   * The thread's org and Specialist, when the caller may see it; 404 otherwise, as `thread`. A
   * thread never moves to another org or Specialist, so its facts are remembered by id once read
   * (by anyone): whether this caller reaches them is decided on every call, from the caller as
   * verified by this request. A thread deleted since (with its org) is found missing by the
   * statement that then writes to it, in its org's scope.
   */
  async threadFacts(principal: Principal, conversationId: string): Promise<ThreadFacts> {
    const known = this.facts.get(conversationId);
    if (!known) return this.thread(principal, conversationId);
    if (!reaches(await this.reachOf(principal), known)) throw AppError.notFound('Conversation');
    return known;
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

  /** Keeps a thread's facts, from a read of its row. */
  private remember(row: ThreadFacts): void {
    if (!this.facts.has(row.id)) this.facts.set(row.id, { id: row.id, orgId: row.orgId, specialistId: row.specialistId });
  }
}
