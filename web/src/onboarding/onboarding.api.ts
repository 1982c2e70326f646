import type { CompleteOnboardingInput, CompleteOnboardingResponse, OnboardingView, SlugAvailability, SpecialistPreview, TokenResponse } from '@contracts';
import { apiFetch, fetchAllPages } from '../api/client';

export type { CompleteOnboardingInput, OnboardingView, SpecialistPreview };

const invite = (token: string) => `/onboarding/${encodeURIComponent(token)}`;

/** Public reads of an invite, the onboarding code, and the completion (spec 1 item 1, 4.3). */
export const onboardingApi = {
  view: (token: string, signal?: AbortSignal) => apiFetch<OnboardingView>(invite(token), { signal }),
  preassignedSpecialist: (token: string, signal?: AbortSignal) => apiFetch<SpecialistPreview>(`${invite(token)}/specialist`, { signal }),
  specialists: (token: string, signal?: AbortSignal) => fetchAllPages<SpecialistPreview>(`${invite(token)}/specialists`, { signal }),
  /** The subdomain check of Workspace Setup, scoped by the invite (its own org never takes it). */
  subdomainAvailability: (token: string, slug: string, signal?: AbortSignal) => apiFetch<SlugAvailability>(`${invite(token)}/subdomain-availability`, { query: { slug }, signal }),
  sendCode: (token: string) => apiFetch<void>('/auth/send-invite-otp', { method: 'POST', body: { token } }),
  verifyCode: (token: string, code: string) => apiFetch<TokenResponse>('/auth/verify-invite-otp', { method: 'POST', body: { token, code } }),
  /** With the session of the invited admin (the onboarding code's sign-in). */
  complete: (token: string, body: CompleteOnboardingInput) => apiFetch<CompleteOnboardingResponse>(`${invite(token)}/complete`, { method: 'POST', body }),
};

export const onboardingKeys = {
  view: (token: string) => ['onboarding', token, 'view'] as const,
  preassigned: (token: string) => ['onboarding', token, 'specialist'] as const,
  specialists: (token: string) => ['onboarding', token, 'specialists'] as const,
  subdomain: (token: string, slug: string) => ['onboarding', token, 'subdomain', slug] as const,
};
