import { z } from 'zod';
import { PasswordSchema } from '../../contracts/auth.js';
import { CalendarDaySchema } from '../../contracts/dates.js';
import { OrgSlugSchema } from '../../contracts/orgs.js';
import { OrgDtoSchema } from '../orgs/orgs.schemas.js';
import { RateSchema } from '../../contracts/assignments.js';

export const InviteRequestSchema = z.object({
  trialEndDate: CalendarDaySchema.nullish(),
  startDate: CalendarDaySchema.nullish(),
});

export const InviteResponseSchema = z.object({ org: OrgDtoSchema, onboardingUrl: z.string(), expiresAt: z.string() });
export const OnboardingLinkSchema = z.object({ onboardingUrl: z.string(), expiresAt: z.string().nullable() });

export const TokenParamsSchema = z.object({ token: z.string().min(20).max(200) });
export const InviteTokenBodySchema = z.object({ token: z.string().min(20).max(200) });
export const VerifyInviteOtpSchema = z.object({ token: z.string().min(20).max(200), code: z.string().regex(/^\d{6}$/, 'Must be a 6-digit code') });

export const OnboardingViewSchema = z.object({
  org: z.object({ legalName: z.string(), slug: z.string(), industry: z.string(), corporateDomains: z.array(z.string()), website: z.string(), timezone: z.string() }),
  adminEmail: z.string(),
  expiresAt: z.string().nullable(),
  specialistPreassigned: z.boolean(),
});

export const SpecialistPreviewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  avatarUrl: z.string().nullable(),
  skillTags: z.array(z.string()),
  monthlyRate: RateSchema,
});

export const CompleteOnboardingSchema = z.object({
  legalName: z.string().trim().min(1, 'Required').max(200),
  slug: OrgSlugSchema,
  password: PasswordSchema,
  name: z.string().trim().min(1, 'Required').max(200),
  specialistId: z.uuid().optional(),
});

export const CompleteOnboardingResponseSchema = z.object({ token: z.string(), org: OrgDtoSchema });
