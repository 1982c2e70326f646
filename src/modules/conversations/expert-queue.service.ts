import { Injectable } from '@nestjs/common';
import type { ConversationStatus, QueueItemDto, QueueItemReason, QueueTab } from '../../contracts/conversations.js';
import type { Principal } from '../../platform/auth/principal.js';
import { DbService } from '../../platform/db/db.service.js';
import { decodeCursor, pageOf } from '../../platform/http/pagination.js';
import { logger } from '../../platform/observability/logger.js';
import { ExpertsService } from '../experts/index.js';
import { NotificationsService } from '../notifications/index.js';
import { OrgsService } from '../orgs/index.js';
import { SpecialistsService } from '../specialists/index.js';
import { ConversationAccess } from './conversation-access.service.js';
import { toQueueItemDto } from './conversations.dto.js';
import { ConversationEvents } from './conversations.events.js';
import { ConversationsRepository } from './conversations.repository.js';
import type { ConversationRow, QueueItemRow } from './conversations.tables.js';

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
    private readonly access: ConversationAccess,
    private readonly events: ConversationEvents,
    private readonly dbService: DbService,
    private readonly orgs: OrgsService,
    private readonly specialists: SpecialistsService,
    private readonly experts: ExpertsService,
    private readonly notifications: NotificationsService,
  ) {}

  async list(principal: Principal, query: { status: QueueTab; orgId?: string; limit: number; cursor?: string }) {
    const orgId = await this.access.namedOrg(principal, query.orgId);
    const reach = await this.access.reachOf(principal);
    const rows = await this.repo.listQueue(reach, { status: query.status === 'all' ? undefined : query.status, orgId }, { limit: query.limit, after: decodeCursor(query.cursor) });
    const page = rows.slice(0, query.limit);
    const [threads, orgs, specialists] = await Promise.all([
      this.repo.conversationsByIds(page.map((r) => r.conversationId)),
      this.orgs.summaries(page.map((r) => r.orgId)),
      this.specialists.byIds(page.map((r) => r.specialistId)),
    ]);
    const byId = new Map(threads.map((t) => [t.id, t]));
    return pageOf(rows, query.limit, (r) => ({ at: r.updatedAt, id: r.id }), (r): QueueItemDto =>
      toQueueItemDto(r, byId.get(r.conversationId), orgs.get(r.orgId)?.legalName ?? '', specialists.get(r.specialistId)),
    );
  }

  /**
   * Puts a conversation on the list (or refreshes its item) inside the caller's transaction; the
   * event and the Experts' notifications follow the commit.
   */
  async raise(conversation: ConversationRow, reason: QueueItemReason, note: string | null, now: Date): Promise<QueueItemRow> {
    const existing = await this.repo.findQueueItem(conversation.id);
    const values = {
      reason,
      note,
      status: conversation.status,
      slaDeadline: new Date(now.getTime() + SLA_MS[reason]),
      deferredUntil: conversation.status === 'snoozed' ? conversation.snoozeUntil : null,
    };
    const item = existing
      ? await this.repo.updateQueueItem(existing.id, values)
      : await this.repo.insertQueueItem({ ...values, orgId: conversation.orgId, conversationId: conversation.id, specialistId: conversation.specialistId, assignedExpertId: conversation.assignedExpertId });
    this.dbService.afterCommit(async () => {
      this.events.queueItemAdded(item);
      await this.notifyCoveringExperts(conversation, item);
    });
    return item;
  }

  /** Keeps the item's status (and deferral) equal to its conversation's; inside the caller's transaction. */
  async mirror(conversation: ConversationRow, from: ConversationStatus): Promise<void> {
    const item = await this.repo.findQueueItem(conversation.id);
    if (!item) return;
    const updated = await this.repo.updateQueueItem(item.id, {
      status: conversation.status,
      deferredUntil: conversation.status === 'snoozed' ? conversation.snoozeUntil : null,
      assignedExpertId: conversation.assignedExpertId,
    });
    this.dbService.afterCommit(() => (from === updated.status ? this.events.queueItemUpdated(updated) : this.events.queueItemStatus(updated, from)));
  }

  /** The active Experts whose grants cover the conversation's Specialist. */
  coveringExperts(conversation: ConversationRow): Promise<string[]> {
    return this.experts.coveringExperts(conversation.orgId, conversation.specialistId);
  }

  private async notifyCoveringExperts(conversation: ConversationRow, item: QueueItemRow): Promise<void> {
    try {
      const expertIds = await this.coveringExperts(conversation);
      const org = (await this.orgs.summaries([conversation.orgId])).get(conversation.orgId);
      const failure = item.reason === 'agent_failure';
      await this.notifications.notifyEach(expertIds, {
        type: failure ? 'expert_queue.agent_failure' : 'expert_queue.escalation',
        title: failure ? 'A Specialist reply failed' : 'A client asked for a human',
        message: `${org?.legalName ?? 'An org'}: ${failure ? 'the Specialist could not answer a message after retries' : (item.note ?? 'a conversation needs an Expert')}`,
        meta: { orgId: conversation.orgId, slug: org?.slug, conversationId: conversation.id, queueItemId: item.id, reason: item.reason },
      });
    } catch (err) {
      logger.error({ err, conversationId: conversation.id }, 'notifying the covering Experts failed');
    }
  }
}
