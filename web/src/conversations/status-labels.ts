import type { ConversationStatus } from '@contracts';

/**
 * The one word for each conversation status of spec 3.1, the same for the client, the Expert and
 * staff: a thread reads the same on every side.
 */
export const CONVERSATION_STATUS_LABELS: Readonly<Record<ConversationStatus, string>> = {
  pending: 'Pending',
  awaiting_client: 'Awaiting reply',
  resolved: 'Resolved',
  snoozed: 'Snoozed',
};

/** The word a person reads for a conversation status. */
export function conversationStatusLabel(status: ConversationStatus): string {
  return CONVERSATION_STATUS_LABELS[status];
}
