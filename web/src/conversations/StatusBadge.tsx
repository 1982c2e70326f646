import { Badge, type MantineColor } from '@mantine/core';
import type { ConversationStatus, QueueItemReason } from '@contracts';
import { CONVERSATION_STATUS_LABELS, conversationStatusLabel } from './status-labels';

/** The status words (spec 3.1), one vocabulary for every side; kept under this name for older callers. */
export const STATUS_LABELS = CONVERSATION_STATUS_LABELS;

const STATUS_COLORS: Record<ConversationStatus, MantineColor> = {
  pending: 'yellow',
  awaiting_client: 'blue',
  resolved: 'green',
  snoozed: 'gray',
};

/** A conversation's (or attention-list item's) status, spec 3.1, in the one vocabulary of every side. */
export function StatusBadge({ status }: { status: ConversationStatus }) {
  return (
    <Badge color={STATUS_COLORS[status]} variant="light" data-testid="conversation-status" data-status={status}>
      {conversationStatusLabel(status)}
    </Badge>
  );
}

const REASON_LABELS: Record<QueueItemReason, string> = { escalation: 'Escalation', agent_failure: 'Agent failure' };

/** Why a thread is on the attention list. */
export function ReasonBadge({ reason }: { reason: QueueItemReason }) {
  return (
    <Badge color={reason === 'agent_failure' ? 'red' : 'orange'} variant="light" data-testid="queue-reason" data-reason={reason}>
      {REASON_LABELS[reason]}
    </Badge>
  );
}
