import { AssignSpecialistSchema, UpdateAssignmentSchema, type SavePlan } from '@contracts';
import { zodFieldErrors, type FieldErrors } from '../../../../ops/errors';

/** Client-side check of every body with the shared schemas; errors keyed by Specialist id. */
export function validatePlan(plan: SavePlan): Record<string, FieldErrors> {
  const errors: Record<string, FieldErrors> = {};
  for (const { specialistId, body } of plan.assign) {
    const parsed = AssignSpecialistSchema.safeParse(body);
    if (!parsed.success) errors[specialistId] = zodFieldErrors(parsed.error);
  }
  for (const { specialistId, body } of plan.update) {
    const parsed = UpdateAssignmentSchema.safeParse(body);
    if (!parsed.success) errors[specialistId] = zodFieldErrors(parsed.error);
  }
  return errors;
}
