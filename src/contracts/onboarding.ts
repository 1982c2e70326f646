import { z } from 'zod';
import { RateSchema } from './assignments.js';
import { PasswordSchema } from './auth.js';
import { OrgDtoSchema, OrgSlugSchema } from './orgs.js';

// The client confirmation flow (spec 4.3; API-MAP.md "Client confirmation, Phase 2") and the AM's invite.

/** sendOrgInvite's answer. */
export const InviteResponseSchema = z.object({ org: OrgDtoSchema, onboardingUrl: z.string(), expiresAt: z.string() });
export type InviteResult = z.infer<typeof InviteResponseSchema>;

/** The onboarding link, before (`expiresAt: null`) and after the invite is sent. */
export const OnboardingLinkSchema = z.object({ onboardingUrl: z.string(), expiresAt: z.string().nullable() });
export type OnboardingLink = z.infer<typeof OnboardingLinkSchema>;

export const OnboardingViewSchema = z.object({
  org: z.object({ legalName: z.string(), slug: z.string(), industry: z.string(), corporateDomains: z.array(z.string()), website: z.string(), timezone: z.string() }),
  adminEmail: z.string(),
  expiresAt: z.string().nullable(),
  specialistPreassigned: z.boolean(),
});
export type OnboardingView = z.infer<typeof OnboardingViewSchema>;

export const SpecialistPreviewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  avatarUrl: z.string().nullable(),
  skillTags: z.array(z.string()),
  monthlyRate: RateSchema,
});
export type SpecialistPreview = z.infer<typeof SpecialistPreviewSchema>;

export const CompleteOnboardingSchema = z.object({
  legalName: z.string().trim().min(1, 'Required').max(200),
  slug: OrgSlugSchema,
  password: PasswordSchema,
  name: z.string().trim().min(1, 'Required').max(200),
  specialistId: z.uuid().optional(),
});
export type CompleteOnboardingInput = z.infer<typeof CompleteOnboardingSchema>;

export const CompleteOnboardingResponseSchema = z.object({ token: z.string(), org: OrgDtoSchema });
export type CompleteOnboardingResponse = z.infer<typeof CompleteOnboardingResponseSchema>;
