import type { OsaDto, TokenResponse } from '@contracts';
import { apiFetch, fetchAllPages } from '../api/client';
import type { OrgDto } from '../ops/types';

/**
 * Wire shapes of the client confirmation flow (API-MAP.md "Client confirmation, Phase 2"); the
 * server keeps their schemas in its onboarding module. Kept in step with them.
 */
export interface OnboardingView {
  org: { legalName: string; slug: string; industry: string; corporateDomains: string[]; website: string; timezone: string };
  adminEmail: string;
  expiresAt: string | null;
  specialistPreassigned: boolean;
}

export interface SpecialistPreview {
  id: string;
  name: string;
  slug: string;
  avatarUrl: string | null;
  skillTags: string[];
  monthlyRate: OsaDto['rate'];
}

export interface CompleteOnboardingInput {
  legalName: string;
  slug: string;
  password: string;
  name: string;
  specialistId?: string;
}

const invite = (token: string) => `/onboarding/${encodeURIComponent(token)}`;

/** Public reads of an invite, the onboarding code, and the completion (spec 1 item 1, 4.3). */
export const onboardingApi = {
  view: (token: string, signal?: AbortSignal) => apiFetch<OnboardingView>(invite(token), { signal }),
  preassignedSpecialist: (token: string, signal?: AbortSignal) => apiFetch<SpecialistPreview>(`${invite(token)}/specialist`, { signal }),
  specialists: (token: string, signal?: AbortSignal) => fetchAllPages<SpecialistPreview>(`${invite(token)}/specialists`, { signal }),
  sendCode: (token: string) => apiFetch<void>('/auth/send-invite-otp', { method: 'POST', body: { token } }),
  verifyCode: (token: string, code: string) => apiFetch<TokenResponse>('/auth/verify-invite-otp', { method: 'POST', body: { token, code } }),
  /** With the session of the invited admin (the onboarding code's sign-in). */
  complete: (token: string, body: CompleteOnboardingInput) =>
    apiFetch<{ token: string; org: OrgDto }>(`${invite(token)}/complete`, { method: 'POST', body }),
};

export const onboardingKeys = {
  view: (token: string) => ['onboarding', token, 'view'] as const,
  preassigned: (token: string) => ['onboarding', token, 'specialist'] as const,
  specialists: (token: string) => ['onboarding', token, 'specialists'] as const,
};
