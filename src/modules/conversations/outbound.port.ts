import { definePort } from '../../platform/ports/ports.js';
import type { ConversationRow, MessageRow } from './conversations.tables.js';

/**
 * Replies to a conversation that came from a channel leave through that channel. The channels
 * module provides this port; it is called inside the transaction that stores the reply (or the
 * Expert's follow-up), so the outgoing row commits with it or not at all. A Specialist reply
 * comes with the client message it answers (`message.replyToMessageId`), whose idempotency key
 * names the channel message (`channelMessageKey`); a follow-up answers none.
 */
export interface OutboundPort {
  enqueue(conversation: ConversationRow, message: MessageRow, answered?: MessageRow): Promise<void>;
}
export const OUTBOUND_PORT = definePort<OutboundPort>('OUTBOUND_PORT');

/** The idempotency key of a client message that arrived through a channel: `<channel>:<the channel's message key>`. */
export function channelMessageKey(channel: string, messageKey: string): string {
  return `${channel}:${messageKey}`;
}
