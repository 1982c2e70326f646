/**
 * The mailbox lifecycle of an OSA (spec 3.3): tracked by three timestamps, not an enum. The badge
 * and which of Provision now, Suspend and Restore the state allows, as pure functions.
 */
export interface MailboxTimestamps {
  mailboxUserId: string | null;
  mailboxSuspendedAt: Date | null;
  mailboxArchivedAt: Date | null;
}

export type MailboxBadge = 'archived' | 'suspended' | 'provisioned' | 'provisioning' | 'none';

/** Spec 3.3: the lifecycle is the three timestamps; the badge shows Archived, then Suspended, then Provisioned. */
export function mailboxBadge(m: MailboxTimestamps, provisioningQueued = false): MailboxBadge {
  if (m.mailboxArchivedAt) return 'archived';
  if (m.mailboxSuspendedAt) return 'suspended';
  if (m.mailboxUserId) return 'provisioned';
  return provisioningQueued ? 'provisioning' : 'none';
}

export type MailboxAction = 'provision' | 'suspend' | 'restore';

/** The conditions of spec 3.3, as one table: null when allowed, else why not. */
export function mailboxActionRefusal(action: MailboxAction, m: MailboxTimestamps): string | null {
  switch (action) {
    case 'provision':
      if (m.mailboxArchivedAt) return 'The mailbox is archived';
      if (m.mailboxUserId) return 'The mailbox is already provisioned';
      return null;
    case 'suspend':
      if (m.mailboxArchivedAt) return 'The mailbox is archived';
      if (!m.mailboxUserId) return 'There is no mailbox user to suspend';
      if (m.mailboxSuspendedAt) return 'The mailbox is already suspended';
      return null;
    case 'restore':
      if (m.mailboxArchivedAt) return 'The mailbox is archived';
      if (!m.mailboxSuspendedAt) return 'The mailbox is not suspended';
      return null;
  }
}
