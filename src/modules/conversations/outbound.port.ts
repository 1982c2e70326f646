import type { ConversationRow, MessageRow } from './conversations.tables.js';

/**
 * Replies to a conversation that came from a channel leave through that channel. The channels
 * module fills this port; it is called inside the transaction that stores the reply (or the
 * Expert's follow-up), so the outgoing row commits with it or not at all.
 */
export interface OutboundPort {
  enqueue(conversation: ConversationRow, message: MessageRow): Promise<void>;
}
