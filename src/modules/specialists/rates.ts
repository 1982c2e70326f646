export const MAX_OVERRIDE_RATE = 99999;
export const MIN_OVERRIDE_RATE = 1;

export interface RateWindow {
  monthlyRate: number | null;
  rateEffectiveFrom: string | null;
  rateEffectiveUntil: string | null;
}

export interface ResolvedRate {
  amount: number;
  currency: string;
  source: 'override' | 'specialist';
}

/** Whether the override's window covers a day (YYYY-MM-DD); open ends are unbounded. */
export function overrideActive(osa: RateWindow, day: string): boolean {
  if (osa.monthlyRate == null) return false;
  if (osa.rateEffectiveFrom && day < osa.rateEffectiveFrom) return false;
  if (osa.rateEffectiveUntil && day > osa.rateEffectiveUntil) return false;
  return true;
}

/**
 * Rate resolution of spec 2.3: the OSA override when its window is active, else the catalog
 * default, else null. The currency is the catalog's.
 */
export function resolveRate(osa: RateWindow, catalog: { base_rate: number; currency: string } | null | undefined, day: string): ResolvedRate | null {
  const currency = catalog?.currency ?? 'USD';
  if (overrideActive(osa, day)) return { amount: osa.monthlyRate!, currency, source: 'override' };
  if (catalog && Number.isFinite(catalog.base_rate)) return { amount: catalog.base_rate, currency, source: 'specialist' };
  return null;
}

export type MailboxBadge = 'archived' | 'suspended' | 'provisioned' | 'provisioning' | 'none';

/** Spec 3.3: the lifecycle is the three timestamps; the badge shows Archived, then Suspended, then Provisioned. */
export function mailboxBadge(m: { mailboxUserId: string | null; mailboxSuspendedAt: Date | null; mailboxArchivedAt: Date | null }, provisioningQueued = false): MailboxBadge {
  if (m.mailboxArchivedAt) return 'archived';
  if (m.mailboxSuspendedAt) return 'suspended';
  if (m.mailboxUserId) return 'provisioned';
  return provisioningQueued ? 'provisioning' : 'none';
}

export type MailboxAction = 'provision' | 'suspend' | 'restore';

/** The conditions of spec 3.3, as one table: null when allowed, else why not. */
export function mailboxActionRefusal(
  action: MailboxAction,
  m: { mailboxUserId: string | null; mailboxSuspendedAt: Date | null; mailboxArchivedAt: Date | null },
): string | null {
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
