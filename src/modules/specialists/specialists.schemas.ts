import { z } from 'zod';
import { httpUrl } from '../../contracts/url.js';

export const SPECIALIST_SLUG = /^[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/;

export const MonthlyRateConfigSchema = z.object({
  base_rate: z.number().min(0).max(1_000_000),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'Must be a 3-letter ISO 4217 code')
    .transform((c) => c.toUpperCase()),
});

const fields = {
  name: z.string().trim().min(1).max(120),
  slug: z.string().trim().toLowerCase().regex(SPECIALIST_SLUG, 'Lowercase letters, digits and hyphens; 2 to 63 characters'),
  avatarUrl: httpUrl().nullish(),
  routingEmail: z.email().max(254).nullish(),
  skillTags: z.array(z.string().trim().min(1).max(50)).max(50),
  persona: z.string().max(20_000),
  monthly_rate_config: MonthlyRateConfigSchema,
};

export const CreateSpecialistSchema = z.object({
  ...fields,
  skillTags: fields.skillTags.default([]),
  persona: fields.persona.default(''),
});
export type CreateSpecialistInput = z.infer<typeof CreateSpecialistSchema>;

/** Only the fields sent change (no defaults here: a missing field is left as it is). */
export const UpdateSpecialistSchema = z
  .object(fields)
  .partial()
  .refine((v) => Object.keys(v).length > 0, 'Send at least one field');
export type UpdateSpecialistInput = z.infer<typeof UpdateSpecialistSchema>;

export const SpecialistDtoSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  avatarUrl: z.string().nullable(),
  routingEmail: z.string().nullable(),
  skillTags: z.array(z.string()),
  persona: z.string(),
  monthly_rate_config: z.object({ base_rate: z.number(), currency: z.string() }),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type SpecialistDto = z.infer<typeof SpecialistDtoSchema>;

export const SpecialistIdParamsSchema = z.object({ id: z.uuid() });
