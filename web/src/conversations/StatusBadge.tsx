import { Badge, type MantineColor } from '@mantine/core';
import type { ConversationStatus, QueueItemReason } from '@contracts';

export const STATUS_LABELS: Record<ConversationStatus, string> = {
  pending: 'Pending',
  awaiting_client: 'Awaiting reply',
  resolved: 'Resolved',
  snoozed: 'Snoozed',
};

const STATUS_COLORS: Record<ConversationStatus, MantineColor> = {
  pending: 'yellow',
  awaiting_client: 'blue',
  resolved: 'green',
  snoozed: 'gray',
};

/** A conversation's (or attention-list item's) status, spec 3.1. */
export function StatusBadge({ status, label }: { status: ConversationStatus; label?: Partial<Record<ConversationStatus, string>> }) {
  return (
    <Badge color={STATUS_COLORS[status]} variant="light" data-testid="conversation-status" data-status={status}>
      {label?.[status] ?? STATUS_LABELS[status]}
    </Badge>
  );
}

const REASON_LABELS: Record<QueueItemReason, string> = { escalation: 'Escalation', agent_failure: 'Agent failure' };

/** Why a thread is on the attention list. */
export function ReasonBadge({ reason }: { reason: QueueItemReason }) {
  return (
    <Badge color={reason === 'agent_failure' ? 'red' : 'orange'} variant="outline" data-testid="queue-reason" data-reason={reason}>
      {REASON_LABELS[reason]}
    </Badge>
  );
}
