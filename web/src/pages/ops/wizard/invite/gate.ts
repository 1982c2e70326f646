import { ApiError } from '../../../../api/client';

/** Labels of the Phase 0 gate's missing items (spec 4.2 rules 1, 2 and 4). */
const MISSING_LABELS: Record<string, string> = {
  legalName: 'Company legal name',
  slug: 'Subdomain',
  industry: 'Industry',
  corporateDomains: 'At least one corporate domain',
  adminEmail: 'Admin email',
  timezone: 'Timezone',
  amProfileName: 'Your AM profile name',
  trialEndDate: 'A trial end date in the future (or none)',
};

export function missingLabel(item: string): string {
  return MISSING_LABELS[item] ?? item;
}

/** Every missing item is fixed on step 1 (the AM profile name is asked there while it is empty). */
export const FIX_ROUTE = 'step-1' as const;

/** The `details.missing` of a 409 `phase0_gate_failed` (send invite, finish); else none. */
export function gateMissingOf(error: unknown): string[] {
  if (!(error instanceof ApiError) || error.code !== 'phase0_gate_failed') return [];
  const missing = (error.details as { missing?: unknown } | undefined)?.missing;
  return Array.isArray(missing) ? missing.filter((m): m is string => typeof m === 'string') : [];
}

/** The org statuses in which step 4 still offers the invite (and its link). */
export function invitable(status: string): boolean {
  return status === 'pending_am_setup' || status === 'pending_client_confirmation';
}
