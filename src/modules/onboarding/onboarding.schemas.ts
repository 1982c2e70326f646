import { z } from 'zod';
import { CalendarDaySchema } from '../../contracts/dates.js';

export const InviteRequestSchema = z.object({
  trialEndDate: CalendarDaySchema.nullish(),
  startDate: CalendarDaySchema.nullish(),
});

// The flow's wire shapes live in the contracts, so the web app reads the types the API answers with.
export { CompleteOnboardingResponseSchema, CompleteOnboardingSchema, InviteResponseSchema, OnboardingLinkSchema, OnboardingViewSchema, SpecialistPreviewSchema } from '../../contracts/onboarding.js';

export const TokenParamsSchema = z.object({ token: z.string().min(20).max(200) });
export const InviteTokenBodySchema = z.object({ token: z.string().min(20).max(200) });
export const VerifyInviteOtpSchema = z.object({ token: z.string().min(20).max(200), code: z.string().regex(/^\d{6}$/, 'Must be a 6-digit code') });

/** `?slug=`: the subdomain as typed (checked exactly as sent, like the wizard's check). */
export const SubdomainQuerySchema = z.object({ slug: z.string().max(200) });
