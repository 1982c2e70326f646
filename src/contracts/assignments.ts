import { z } from 'zod';
import { CalendarDaySchema } from './dates.js';
import { SpecialistDtoSchema } from './specialists.js';

const day = CalendarDaySchema;

/** monthlyRate: null (the catalog rate applies) or 1..99999 with an overrideReason (spec 2.3). */
const rateFields = {
  monthlyRate: z.number().min(1, 'Must be at least 1').max(99999, 'Must be at most 99999').nullable().optional(),
  overrideReason: z.string().trim().max(500).nullable().optional(),
  rateEffectiveFrom: day.nullable().optional(),
  rateEffectiveUntil: day.nullable().optional(),
};

function rateRules<T extends { monthlyRate?: number | null; overrideReason?: string | null; rateEffectiveFrom?: string | null; rateEffectiveUntil?: string | null }>(v: T, ctx: z.RefinementCtx) {
  if (typeof v.monthlyRate === 'number' && !v.overrideReason) {
    ctx.addIssue({ code: 'custom', path: ['overrideReason'], message: 'Required with a monthlyRate override' });
  }
  if (v.rateEffectiveFrom && v.rateEffectiveUntil && v.rateEffectiveUntil < v.rateEffectiveFrom) {
    ctx.addIssue({ code: 'custom', path: ['rateEffectiveUntil'], message: 'Must not be before rateEffectiveFrom' });
  }
}

export const AssignSpecialistSchema = z.object({ specialistId: z.uuid(), ...rateFields }).superRefine(rateRules);
export type AssignSpecialistInput = z.infer<typeof AssignSpecialistSchema>;

export const UpdateAssignmentSchema = z.object({ ...rateFields, monthlyRate: rateFields.monthlyRate.unwrap() }).superRefine(rateRules);
export type UpdateAssignmentInput = z.infer<typeof UpdateAssignmentSchema>;

export const RateSchema = z.object({ amount: z.number(), currency: z.string(), source: z.enum(['override', 'specialist']) }).nullable();

export const OsaDtoSchema = z.object({
  id: z.uuid(),
  assignmentId: z.uuid(),
  orgId: z.uuid(),
  specialistId: z.uuid(),
  isPrimary: z.boolean(),
  monthlyRate: z.number().nullable(),
  overrideReason: z.string().nullable(),
  monthly_rate_config: z.object({
    base_rate: z.number().nullable(),
    currency: z.string(),
    rate_effective_from: z.string().nullable(),
    rate_effective_until: z.string().nullable(),
  }),
  rate: RateSchema,
  email_alias: z.string(),
  mailboxUserId: z.string().nullable(),
  mailboxProvisionedAt: z.string().nullable(),
  mailboxSuspendedAt: z.string().nullable(),
  mailboxArchivedAt: z.string().nullable(),
  mailboxStatus: z.enum(['archived', 'suspended', 'provisioned', 'provisioning', 'none']),
  /** The catalog Specialist's fields (spec 2.2, 4.2: the detail joins them), its catalog rate included; not its persona. */
  specialist: SpecialistDtoSchema.omit({ persona: true, createdAt: true, updatedAt: true }),
  createdAt: z.string(),
});
export type OsaDto = z.infer<typeof OsaDtoSchema>;
