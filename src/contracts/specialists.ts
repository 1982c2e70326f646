import { z } from 'zod';
import { httpUrl } from './url.js';

export const SPECIALIST_SLUG = /^[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/;
/** The largest catalog monthly rate a Specialist may carry. */
export const MAX_CATALOG_RATE = 1_000_000;
export const MAX_SKILL_TAGS = 50;

export const MonthlyRateConfigSchema = z.object({
  base_rate: z
    .number()
    .min(0, 'The rate cannot be negative')
    .max(MAX_CATALOG_RATE, `At most ${MAX_CATALOG_RATE.toLocaleString('en-US')}`),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'Must be a 3-letter ISO 4217 code')
    .transform((c) => c.toUpperCase()),
});

const fields = {
  name: z.string().trim().min(1, 'A name is required').max(120, 'At most 120 characters'),
  slug: z.string().trim().toLowerCase().regex(SPECIALIST_SLUG, 'Lowercase letters, digits and hyphens; 2 to 63 characters'),
  /** An address (http or https), shown to clients wherever the Specialist appears. */
  avatarUrl: httpUrl().nullish(),
  routingEmail: z.email('Enter a valid email address').max(254).nullish(),
  skillTags: z.array(z.string().trim().min(1).max(50, 'A skill has at most 50 characters')).max(MAX_SKILL_TAGS, `At most ${MAX_SKILL_TAGS} skills`),
  persona: z.string().max(20_000, 'At most 20,000 characters'),
  /** Null: no catalog rate (an OSA without an override is then not billed, spec 2.3). */
  monthly_rate_config: MonthlyRateConfigSchema.nullable(),
};

export const CreateSpecialistSchema = z.object({
  ...fields,
  skillTags: fields.skillTags.default([]),
  persona: fields.persona.default(''),
  monthly_rate_config: fields.monthly_rate_config.default(null),
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
  monthly_rate_config: z.object({ base_rate: z.number(), currency: z.string() }).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type SpecialistDto = z.infer<typeof SpecialistDtoSchema>;

export const SpecialistIdParamsSchema = z.object({ id: z.uuid() });

/** The client's view of one of its org's Specialists (`GET /client/specialists`): the persona, never an Expert. */
export const ClientSpecialistSchema = z.object({
  assignmentId: z.uuid(),
  specialistId: z.uuid(),
  name: z.string(),
  avatarUrl: z.string().nullable(),
  skillTags: z.array(z.string()),
  email_alias: z.string(),
  isPrimary: z.boolean(),
});
export type ClientSpecialist = z.infer<typeof ClientSpecialistSchema>;
