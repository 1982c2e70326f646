import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { MessageDelivery } from '../../contracts/conversations.js';
import { conversationRoom } from '../../contracts/realtime.js';
import { definePort, Ports } from '../../platform/ports/ports.js';
import { RealtimeService } from '../../platform/realtime/realtime.service.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';
import type { Viewer } from './conversations.dto.js';
import type { ConversationRow, MessageRow } from './conversations.tables.js';

/** The channels module answers how far each channel reply of an org got (its outbox). */
export interface DeliveryPort {
  deliveryOf(scope: OrgScope, messageIds: string[]): Promise<Map<string, MessageDelivery>>;
}
export const DELIVERY_PORT = definePort<DeliveryPort>('DELIVERY_PORT');

/**
 * The delivery state staff see on a channel reply (`MessageDto.delivery`): read through the port
 * the channels module provides, and announced to the thread's staff sockets when it changes.
 * Client roles never get it.
 */
@Injectable()
export class MessageDeliveries implements OnModuleInit {
  private port!: DeliveryPort;

  constructor(
    private readonly realtime: RealtimeService,
    private readonly ports: Ports,
  ) {}

  onModuleInit(): void {
    this.port = this.ports.one(DELIVERY_PORT);
  }

  /**
   * The states of the messages a viewer is shown; empty for client roles and web threads. Each
   * thread's are read in its org's scope, which `scopeOf` makes (the caller knows how it read them).
   */
  async of(
    viewer: Viewer,
    conversations: Pick<ConversationRow, 'id' | 'orgId' | 'channel'>[],
    rows: MessageRow[],
    scopeOf: (thread: { orgId: string }) => OrgScope,
  ): Promise<Map<string, MessageDelivery>> {
    if (viewer !== 'staff') return new Map();
    const orgOf = new Map(conversations.filter((c) => c.channel !== 'web').map((c) => [c.id, c.orgId]));
    const idsByOrg = new Map<string, string[]>();
    for (const r of rows) {
      const orgId = orgOf.get(r.conversationId);
      if (orgId === undefined || (r.role !== 'specialist' && r.role !== 'expert') || r.isInternal) continue;
      const ids = idsByOrg.get(orgId);
      if (ids) ids.push(r.id);
      else idsByOrg.set(orgId, [r.id]);
    }
    const states = new Map<string, MessageDelivery>();
    for (const [orgId, ids] of idsByOrg) for (const [id, state] of await this.port.deliveryOf(scopeOf({ orgId }), ids)) states.set(id, state);
    return states;
  }

  /** After the change committed: the thread's staff sockets update the message. */
  changed(message: { orgId: string; conversationId: string; messageId: string }, delivery: MessageDelivery): void {
    const payload = { ...message, delivery };
    this.realtime.toAudiences([conversationRoom(message.conversationId)], 'message_delivery_changed', { staff: payload, client: null });
  }
}
