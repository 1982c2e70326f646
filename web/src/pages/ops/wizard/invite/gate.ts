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
