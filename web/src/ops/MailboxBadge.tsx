import { Badge } from '@mantine/core';
import type { OsaDto } from '@contracts';
import { MAILBOX_COLORS, MAILBOX_LABELS, mailboxStateOf } from './mailbox';

export function MailboxBadge({ osa }: { osa: OsaDto }) {
  const state = mailboxStateOf(osa);
  return (
    <Badge color={MAILBOX_COLORS[state]} variant={state === 'none' ? 'outline' : 'light'} data-testid="mailbox-status" data-state={state}>
      {MAILBOX_LABELS[state]}
    </Badge>
  );
}
