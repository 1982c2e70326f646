import { ORG_STATUSES, type OrgStatus } from '@contracts';
import type { MantineColor } from '@mantine/core';

export const ORG_STATUS_LABELS: Record<OrgStatus, string> = {
  pending_am_setup: 'Pending AM setup',
  pending_specialist_assignment: 'Pending Specialist assignment',
  pending_client_confirmation: 'Pending client confirmation',
  active: 'Active',
  trial_ending: 'Trial ending',
  suspended: 'Suspended',
  deactivated: 'Deactivated',
};

export const ORG_STATUS_COLORS: Record<OrgStatus, MantineColor> = {
  pending_am_setup: 'yellow',
  pending_specialist_assignment: 'orange',
  pending_client_confirmation: 'blue',
  active: 'green',
  trial_ending: 'grape',
  suspended: 'red',
  deactivated: 'gray',
};

/** The options of a status filter; the legacy status is never set, so it is not offered. */
export const ORG_STATUS_OPTIONS = ORG_STATUSES.filter((s) => s !== 'pending_specialist_assignment').map((value) => ({
  value,
  label: ORG_STATUS_LABELS[value],
}));

/** While an org is pending, the AM works on it in the wizard; afterwards on its overview. */
export function isPendingStatus(status: OrgStatus): boolean {
  return status.startsWith('pending_');
}

/** Where a row of the clients list leads. */
export function orgHomePath(org: { id: string; status: OrgStatus }): string {
  return isPendingStatus(org.status) ? `/ops/clients/${org.id}/setup/step-1` : `/ops/clients/${org.id}`;
}
