import { Injectable } from '@nestjs/common';
import { conversationRoom, orgThreadRooms, type ConversationStatus } from '../../contracts/realtime.js';
import { RealtimeService } from '../../platform/realtime/realtime.service.js';
import { jobScope } from '../../platform/tenancy/org-scope.js';
import { ArtifactLinks } from './artifact-links.js';
import { toMessageDto, toQueueItemPayload } from './conversations.dto.js';
import { MessageDeliveries } from './message-deliveries.js';
import type { ConversationRow, MessageRow, QueueItemRow } from './conversations.tables.js';

type MessageEvent = 'user_message_received' | 'agent_message_sent' | 'workspace_message_added';

declare module '../../platform/events/domain-events.js' {
  interface DurableDomainEvents {
    /**
     * An Expert's visible follow-up, shown to the client as their Specialist's reply (spec 1, 4.4):
     * written with the reply, so a crash after the commit loses no notice.
     */
    'conversations.specialist_replied': { orgId: string; conversationId: string; messageId: string };
    /**
     * A conversation was put on the attention list (or asked again): its covering Experts are told
     * (spec 4.4, 6.2). Written with the queue item.
     */
    'conversations.queue_item_raised': { orgId: string; conversationId: string };
  }
}

/**
 * The conversation and queue events of spec 6.1, to the rooms the spec names. Callers emit only
 * after the write has committed (DbService.afterCommit). Client sockets get the client view.
 */
@Injectable()
export class ConversationEvents {
  constructor(
    private readonly realtime: RealtimeService,
    private readonly links: ArtifactLinks,
    private readonly deliveries: MessageDeliveries,
  ) {}

  /**
   * A channel reply's staff view carries its delivery state, read first (a web thread's needs no
   * read). Of the thread, only what never changes is read: its id, org, Specialist and channel.
   */
  async message(event: MessageEvent, conversation: Pick<ConversationRow, 'id' | 'orgId' | 'specialistId' | 'channel'>, row: MessageRow): Promise<void> {
    // Org rooms hold staff only (with the Experts scoped to the thread's Specialist); Expert
    // follow-ups and notes go to the thread's room alone. Every socket in these rooms may read the
    // thread (joins are checked, grants decide the rest), so the views carry links.
    const rooms = event === 'workspace_message_added' ? [conversationRoom(conversation.id)] : [conversationRoom(conversation.id), ...orgThreadRooms(conversation)];
    // The org of the thread row the write carried (after its commit, by a request or a job).
    const delivery = (await this.deliveries.of('staff', [conversation], [row], jobScope).catch(() => new Map<string, never>())).get(row.id);
    const view = (viewer: 'staff' | 'client') => ({ conversationId: conversation.id, orgId: conversation.orgId, message: toMessageDto(row, viewer, conversation.specialistId, this.links, delivery) });
    this.realtime.toAudiences(rooms, event, { staff: view('staff'), client: row.isInternal ? null : view('client') });
  }

  statusChanged(conversation: ConversationRow, from: ConversationStatus, changedBy: string | null): void {
    const payload = {
      conversationId: conversation.id,
      orgId: conversation.orgId,
      from,
      to: conversation.status,
      resolvedAt: conversation.resolvedAt?.toISOString() ?? null,
      snoozeUntil: conversation.snoozeUntil?.toISOString() ?? null,
      changedBy,
      at: conversation.updatedAt.toISOString(),
    };
    this.realtime.toAudiences([conversationRoom(conversation.id), ...orgThreadRooms(conversation)], 'conversation_status_changed', {
      staff: payload,
      client: { ...payload, changedBy: null },
    });
  }

  queueItemAdded(item: QueueItemRow): void {
    this.realtime.toQueue(item, 'expert_queue_item_added', toQueueItemPayload(item));
  }

  /**
   * An item already on the list changed (its conversation's status, deferral, assignment, or a
   * new request for a human). A status change is `queue_item_status_updated`, and
   * `queue_item_resolved` too when it ends in `resolved`; every non-terminal change carries the
   * whole item (`sla_deadline`, `deferred_until`) as `queue_item_updated`.
   */
  queueItemChanged(item: QueueItemRow, from: ConversationStatus): void {
    const moved = from !== item.status;
    if (moved) {
      const payload = { id: item.id, conversationId: item.conversationId, orgId: item.orgId, from, to: item.status, updatedAt: item.updatedAt.toISOString() };
      this.realtime.toQueue(item, 'queue_item_status_updated', payload);
      if (item.status === 'resolved') this.realtime.toQueue(item, 'queue_item_resolved', payload);
    }
    if (!moved || item.status !== 'resolved') this.realtime.toQueue(item, 'queue_item_updated', toQueueItemPayload(item));
  }
}
