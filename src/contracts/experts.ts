import { z } from 'zod';

/** Expert coverage grant (spec 2.4): scope 'org' covers every Specialist of the org, current and future. */
export const GRANT_SCOPES = ['org', 'specialist'] as const;

export const CreateGrantSchema = z
  .object({
    expertId: z.uuid(),
    scope: z.enum(GRANT_SCOPES),
    specialistIds: z.array(z.uuid()).max(100).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.scope === 'specialist' && (!v.specialistIds || v.specialistIds.length === 0)) {
      ctx.addIssue({ code: 'custom', path: ['specialistIds'], message: 'At least one Specialist for a specialist-scoped grant' });
    }
    if (v.scope === 'org' && v.specialistIds && v.specialistIds.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['specialistIds'], message: 'An org-wide grant covers every Specialist: send no specialistIds' });
    }
  });
export type CreateGrantInput = z.infer<typeof CreateGrantSchema>;

export const ExpertSummarySchema = z.object({ id: z.uuid(), name: z.string(), email: z.string() });
export type ExpertSummary = z.infer<typeof ExpertSummarySchema>;

export const GrantDtoSchema = z.object({
  id: z.uuid(),
  orgId: z.uuid(),
  expertId: z.uuid(),
  expert: ExpertSummarySchema,
  scope: z.enum(GRANT_SCOPES),
  specialistIds: z.array(z.uuid()),
  createdAt: z.string(),
});
export type GrantDto = z.infer<typeof GrantDtoSchema>;

/** Per assigned Specialist, the Experts covering it (informational; never gates an invite). */
export const CoverageItemSchema = z.object({
  assignmentId: z.uuid(),
  specialistId: z.uuid(),
  specialistName: z.string(),
  experts: z.array(ExpertSummarySchema.extend({ scope: z.enum(GRANT_SCOPES) })),
});
export type CoverageItem = z.infer<typeof CoverageItemSchema>;
