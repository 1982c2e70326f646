import { Injectable } from '@nestjs/common';
import type { ConversationStatus, QueueAssignee, QueueFiltersDto, QueueItemDto, QueueItemReason, QueueQuery } from '../../contracts/conversations.js';
import type { Principal } from '../../platform/auth/principal.js';
import { DbService } from '../../platform/db/db.service.js';
import { jobScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import type { DurableDomainEvents } from '../../platform/events/domain-events.js';
import { EventBus } from '../../platform/events/event-bus.js';
import { OnDurableEvent } from '../../platform/events/on-event.decorator.js';
import { decodeCursor, encodeCursor, pageText } from '../../platform/http/pagination.js';
import { ExpertsService } from '../experts/index.js';
import { OrgsService } from '../orgs/index.js';
import { SpecialistsService } from '../specialists/index.js';
import { ConversationAccess } from './conversation-access.service.js';
import { threadScope } from './conversations.access.js';
import { excerptParts } from './conversations.dto.js';
import { ConversationEvents } from './conversations.events.js';
import { ConversationsRepository } from './conversations.repository.js';
import { ExpertQueueRepository, type QueueReach } from './expert-queue.repository.js';
import type { ConversationRow, QueueItemRow } from './conversations.tables.js';

/** The matching messages shown with a searched item. */
const MATCHES_PER_ITEM = 2;

/** `assignee` of the query as the repository takes it: an Expert's id, or null for nobody. */
function assigneeFilter(principal: Principal, assignee: QueueAssignee | undefined): string | null | undefined {
  if (assignee === 'me') return principal.userId;
  if (assignee === 'unassigned') return null;
  return assignee;
}

/** How long an Expert has to act on a new item: a failure is more urgent than a request. */
export const SLA_MS: Record<QueueItemReason, number> = { escalation: 4 * 3600_000, agent_failure: 3600_000 };

/**
 * The Expert attention list (spec 4.4): only explicit human requests and genuine failures, one
 * item per conversation, its status the conversation's status; scoped by the Expert's grants.
 */
@Injectable()
export class ExpertQueueService {
  constructor(
    private readonly repo: ConversationsRepository,
    private readonly queueRepo: ExpertQueueRepository,
    private readonly access: ConversationAccess,
    private readonly events: ConversationEvents,
    private readonly dbService: DbService,
    private readonly orgs: OrgsService,
    private readonly specialists: SpecialistsService,
    private readonly experts: ExpertsService,
    private readonly bus: EventBus,
  ) {}

  async list(principal: Principal, query: QueueQuery) {
    const orgId = await this.access.namedOrg(principal, query.orgId);
    const filter = {
      status: query.status === 'all' ? undefined : query.status,
      orgId,
      specialistId: query.specialistId,
      channel: query.channel,
      assignee: assigneeFilter(principal, query.assignee),
      conversationId: query.conversationId,
      q: query.q,
    };
    // One statement: the page, its threads, org and Specialist names (an Expert's grants read in it too), as the JSON of its items.
    const { items, next } = await this.queueRepo.page(await this.queueReach(principal), filter, { limit: query.limit, after: decodeCursor(query.cursor) });
    // The body as the database wrote it: neither parsed nor serialised here.
    if (!query.q) return pageText(items, next);
    // A search adds each item's matching messages. The items were read through the caller's reach: their orgs are the request's.
    const page = items.parse();
    const excerpts = await this.repo.matchExcerpts(
      page.map((item) => threadScope(item)),
      page.map((item) => item.conversationId),
      query.q,
    );
    return {
      items: page.map((item): QueueItemDto => {
        const matches = excerpts
          .filter((m) => m.conversationId === item.conversationId)
          .slice(0, MATCHES_PER_ITEM)
          .map((m) => ({ messageId: m.id, is_internal: m.isInternal, createdAt: m.createdAt.toISOString(), excerpt: excerptParts(m.excerpt) }));
        return { ...item, matches };
      }),
      nextCursor: next ? encodeCursor(next) : null,
    };
  }

  /** The caller's reach for the list: an Expert's grants are read by the list's statement itself (`reachOf` reads them first). */
  private queueReach(principal: Principal): Promise<QueueReach> | QueueReach {
    return principal.platformRole === 'expert' ? { kind: 'expert', expertId: principal.userId } : this.access.reachOf(principal);
  }

  /** What the caller's attention list can be filtered by: its orgs and Specialists, by name, and the active Experts. */
  async filters(principal: Principal): Promise<QueueFiltersDto> {
    const pairs = await this.repo.queueFacets(await this.access.reachOf(principal));
    const [orgs, specialists, experts] = await Promise.all([this.orgs.summaries(pairs.map((p) => p.orgId)), this.specialists.byIds(pairs.map((p) => p.specialistId)), this.experts.experts()]);
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    return {
      orgs: [...orgs.values()].map((o) => ({ id: o.id, name: o.legalName })).sort(byName),
      specialists: [...specialists.values()].map((s) => ({ id: s.id, name: s.name, orgIds: [...new Set(pairs.filter((p) => p.specialistId === s.id).map((p) => p.orgId))] })).sort(byName),
      experts: experts.map((e) => ({ id: e.id, name: e.name })).sort(byName),
    };
  }

  /**
   * Puts a conversation on the list (or refreshes its item) inside the caller's transaction; the
   * event and the Experts' notifications follow the commit.
   */
  async raise(scope: OrgScope, conversation: ConversationRow, reason: QueueItemReason, note: string | null, now: Date): Promise<QueueItemRow> {
    const existing = await this.repo.findQueueItem(scope, conversation.id);
    const values = {
      reason,
      note,
      status: conversation.status,
      slaDeadline: new Date(now.getTime() + SLA_MS[reason]),
      deferredUntil: conversation.status === 'snoozed' ? conversation.snoozeUntil : null,
    };
    const item = existing
      ? await this.repo.updateQueueItem(scope, existing.id, values)
      : await this.repo.insertQueueItem(scope, {
          ...values,
          conversationId: conversation.id,
          specialistId: conversation.specialistId,
          subject: conversation.subject,
          channel: conversation.channel,
          assignedExpertId: conversation.assignedExpertId,
        });
    this.dbService.afterCommit(() => {
      // Asked again for an item already listed: the same item, updated (a new SLA), not a second one.
      if (existing) this.events.queueItemChanged(item, existing.status);
      else this.events.queueItemAdded(item);
    });
    // The covering Experts' notices: written with the item, so none is lost to a crash.
    await this.bus.emitDurable('conversations.queue_item_raised', { orgId: scope.orgId, conversationId: conversation.id });
    return item;
  }

  /** Keeps the item's status (and deferral) equal to its conversation's; inside the caller's transaction. */
  async mirror(scope: OrgScope, conversation: ConversationRow, from: ConversationStatus): Promise<void> {
    const item = await this.repo.findQueueItem(scope, conversation.id);
    if (!item) return;
    const updated = await this.repo.updateQueueItem(scope, item.id, {
      status: conversation.status,
      deferredUntil: conversation.status === 'snoozed' ? conversation.snoozeUntil : null,
      assignedExpertId: conversation.assignedExpertId,
    });
    this.dbService.afterCommit(() => this.events.queueItemChanged(updated, from));
  }

  /** The active Experts whose grants cover the conversation's Specialist. */
  coveringExperts(conversation: ConversationRow): Promise<string[]> {
    return this.experts.coveringExperts(jobScope(conversation), conversation.specialistId);
  }

  /**
   * From the job queue, atomic: tells the Experts whose grants cover the conversation's Specialist
   * that it is on the attention list (one owed notice each, written with this job's completion).
   */
  @OnDurableEvent('conversations.queue_item_raised', { atomic: true })
  async notifyCoveringExperts({ orgId, conversationId }: DurableDomainEvents['conversations.queue_item_raised']): Promise<void> {
    const scope = jobScope({ orgId });
    const [conversation, item] = await Promise.all([this.repo.find(scope, conversationId), this.repo.findQueueItem(scope, conversationId)]);
    if (!conversation || !item) return;
    const expertIds = await this.coveringExperts(conversation);
    if (expertIds.length === 0) return;
    const org = (await this.orgs.summaries([orgId])).get(orgId);
    const failure = item.reason === 'agent_failure';
    const notice = {
      type: failure ? 'expert_queue.agent_failure' : 'expert_queue.escalation',
      title: failure ? 'A Specialist reply failed' : 'A client asked for a human',
      message: `${org?.legalName ?? 'An org'}: ${failure ? 'a Specialist reply failed after retries (the model, or its delivery through the channel)' : (item.note ?? 'a conversation needs an Expert')}`,
      meta: { orgId, slug: org?.slug, conversationId, queueItemId: item.id, reason: item.reason },
    };
    for (const userId of expertIds) await this.bus.emitDurable('notifications.owed', { userId, notice });
  }
}
