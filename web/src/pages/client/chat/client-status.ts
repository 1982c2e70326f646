import type { ConversationStatus } from '@contracts';

/** The statuses as a client reads them: "awaiting reply" is the client's own reply. */
export const CLIENT_STATUS_LABELS: Record<ConversationStatus, string> = {
  pending: 'Open',
  awaiting_client: 'Awaiting your reply',
  resolved: 'Resolved',
  snoozed: 'On hold',
};
