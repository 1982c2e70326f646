import { Injectable } from '@nestjs/common';
import { conversationRoom, orgRoom, type ConversationStatus } from '../../contracts/realtime.js';
import { RealtimeService } from '../../platform/realtime/realtime.service.js';
import { ArtifactLinks } from './artifact-links.js';
import { toMessageDto, toQueueItemPayload } from './conversations.dto.js';
import type { ConversationRow, MessageRow, QueueItemRow } from './conversations.tables.js';

type MessageEvent = 'user_message_received' | 'agent_message_sent' | 'workspace_message_added';

/**
 * The conversation and queue events of spec 6.1, to the rooms the spec names. Callers emit only
 * after the write has committed (DbService.afterCommit). Client sockets get the client view.
 */
@Injectable()
export class ConversationEvents {
  constructor(
    private readonly realtime: RealtimeService,
    private readonly links: ArtifactLinks,
  ) {}

  message(event: MessageEvent, conversation: ConversationRow, row: MessageRow): void {
    // Org rooms hold staff only; Expert follow-ups and notes go to the thread's room alone. Every
    // socket in these rooms may read the thread (joins are checked), so the views carry links.
    const rooms = event === 'workspace_message_added' ? [conversationRoom(conversation.id)] : [conversationRoom(conversation.id), orgRoom(conversation.orgId)];
    const view = (viewer: 'staff' | 'client') => ({ conversationId: conversation.id, orgId: conversation.orgId, message: toMessageDto(row, viewer, conversation.specialistId, this.links) });
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
    this.realtime.toAudiences([conversationRoom(conversation.id), orgRoom(conversation.orgId)], 'conversation_status_changed', {
      staff: payload,
      client: { ...payload, changedBy: null },
    });
  }

  queueItemAdded(item: QueueItemRow): void {
    this.realtime.toQueue(item.orgId, 'expert_queue_item_added', toQueueItemPayload(item));
  }

  queueItemUpdated(item: QueueItemRow): void {
    this.realtime.toQueue(item.orgId, 'queue_item_updated', toQueueItemPayload(item));
  }

  queueItemStatus(item: QueueItemRow, from: ConversationStatus): void {
    const payload = { id: item.id, conversationId: item.conversationId, orgId: item.orgId, from, to: item.status, updatedAt: item.updatedAt.toISOString() };
    this.realtime.toQueue(item.orgId, 'queue_item_status_updated', payload);
    if (item.status === 'resolved') this.realtime.toQueue(item.orgId, 'queue_item_resolved', payload);
  }
}
