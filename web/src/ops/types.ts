/**
 * Wire shapes of the AM endpoints that the shared contracts do not carry (the server keeps them in
 * its org and specialist modules). Kept in step with OrgDto and SpecialistDto of the server.
 */

import type { OrgStatus } from '@contracts';

export { ORG_STATUSES, type OrgStatus } from '@contracts';

export type TrialMode = 'default' | 'none';

export interface OrgDto {
  id: string;
  legalName: string;
  slug: string;
  industry: string;
  corporateDomains: string[];
  adminEmail: string;
  website: string;
  timezone: string;
  logoUrl: string | null;
  billingEmail: string | null;
  companySize: string | null;
  trialEndDate: string | null;
  trialMode: TrialMode;
  trialStartedAt: string | null;
  startDate: string | null;
  status: OrgStatus;
  assignedAmId: string | null;
  mailboxProvisioningDisabled: boolean;
  createdAt: string;
}

/** A catalog Specialist (API-MAP.md "Specialist catalog"). */
export interface SpecialistDto {
  id: string;
  name: string;
  slug: string;
  avatarUrl: string | null;
  routingEmail: string | null;
  skillTags: string[];
  persona: string;
  monthly_rate_config: { base_rate: number; currency: string };
  createdAt: string;
  updatedAt: string;
}

export interface PageOf<T> {
  items: T[];
  nextCursor: string | null;
}

export interface AmProfile {
  id: string;
  email: string;
  name: string;
}

export interface IndustryOption {
  value: string;
  label: string;
}

/** sendOrgInvite's answer (API-MAP.md "AM wizard, Phase 1"). */
export interface InviteResult {
  org: OrgDto;
  onboardingUrl: string;
  expiresAt: string;
}

/** The onboarding link, before (`expiresAt: null`) and after the invite is sent. */
export interface OnboardingLink {
  onboardingUrl: string;
  expiresAt: string | null;
}
