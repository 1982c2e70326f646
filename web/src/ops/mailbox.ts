import type { MantineColor } from '@mantine/core';
import type { OsaDto } from '@contracts';

export type MailboxState = OsaDto['mailboxStatus'];

/** The badge of spec 3.3: Archived, then Suspended, then Provisioned; a queued job shows Provisioning…. */
export function mailboxStateOf(osa: Pick<OsaDto, 'mailboxArchivedAt' | 'mailboxSuspendedAt' | 'mailboxUserId' | 'mailboxStatus'>): MailboxState {
  if (osa.mailboxArchivedAt) return 'archived';
  if (osa.mailboxSuspendedAt) return 'suspended';
  if (osa.mailboxUserId) return 'provisioned';
  return osa.mailboxStatus === 'provisioning' ? 'provisioning' : 'none';
}

export const MAILBOX_LABELS: Record<MailboxState, string> = {
  archived: 'Archived',
  suspended: 'Suspended',
  provisioned: 'Provisioned',
  provisioning: 'Provisioning…',
  none: 'No mailbox',
};

export const MAILBOX_COLORS: Record<MailboxState, MantineColor> = {
  archived: 'gray',
  suspended: 'orange',
  provisioned: 'green',
  provisioning: 'blue',
  none: 'gray',
};

export type MailboxAction = 'provision' | 'suspend' | 'restore';

/** Which actions spec 3.3 allows in the OSA's current state. */
export function allowedMailboxActions(osa: Parameters<typeof mailboxStateOf>[0]): Record<MailboxAction, boolean> {
  const archived = Boolean(osa.mailboxArchivedAt);
  const state = mailboxStateOf(osa);
  return {
    provision: !osa.mailboxUserId && !archived && state !== 'provisioning',
    suspend: Boolean(osa.mailboxUserId) && !osa.mailboxSuspendedAt && !archived,
    restore: Boolean(osa.mailboxSuspendedAt) && !archived,
  };
}
