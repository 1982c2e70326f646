import { AssignSpecialistSchema, UpdateAssignmentSchema, type AssignSpecialistInput, type OsaDto, type UpdateAssignmentInput } from '@contracts';
import { zodFieldErrors, type FieldErrors } from '../../../../ops/errors';

/** What the AM has chosen for one catalog Specialist on the Specialist step. */
export interface AssignmentDraft {
  selected: boolean;
  /** The monthly rate override; '' means the catalog rate. */
  rate: number | '';
  reason: string;
}

export type Drafts = Record<string, AssignmentDraft>;

/** The drafts as the org's assignments stand, and the selection order (oldest assignment first). */
export function draftsOf(assignments: readonly OsaDto[]): { drafts: Drafts; order: string[] } {
  const drafts: Drafts = {};
  for (const a of assignments) drafts[a.specialistId] = { selected: true, rate: a.monthlyRate ?? '', reason: a.overrideReason ?? '' };
  return { drafts, order: assignments.map((a) => a.specialistId) };
}

function rateBody(draft: AssignmentDraft): { monthlyRate: number | null; overrideReason: string | null } {
  if (draft.rate === '') return { monthlyRate: null, overrideReason: null };
  return { monthlyRate: draft.rate, overrideReason: draft.reason.trim() || null };
}

export interface SavePlan {
  assign: Array<{ specialistId: string; body: AssignSpecialistInput }>;
  update: Array<{ specialistId: string; assignmentId: string; body: UpdateAssignmentInput }>;
  unassign: Array<{ specialistId: string }>;
}

/**
 * Spec 4.2 save of the Specialist step: new selections are assigned (in the order they were
 * picked: the first assignment of an org becomes primary), changed rates updated, unchanged ones
 * skipped, deselected ones unassigned (phase 2).
 */
export function planSave(drafts: Drafts, order: readonly string[], assignments: readonly OsaDto[]): SavePlan {
  const bySpecialist = new Map(assignments.map((a) => [a.specialistId, a]));
  const plan: SavePlan = { assign: [], update: [], unassign: [] };
  const ids = [...order, ...Object.keys(drafts).filter((id) => !order.includes(id))];
  for (const specialistId of ids) {
    const draft = drafts[specialistId];
    const current = bySpecialist.get(specialistId);
    if (!draft?.selected) {
      if (current) plan.unassign.push({ specialistId });
      continue;
    }
    const body = rateBody(draft);
    if (!current) {
      plan.assign.push({ specialistId, body: body.monthlyRate === null ? { specialistId } : { specialistId, ...body } });
    } else if (body.monthlyRate !== current.monthlyRate || (body.monthlyRate !== null && body.overrideReason !== current.overrideReason)) {
      plan.update.push({ specialistId, assignmentId: current.id, body });
    }
  }
  for (const a of assignments) {
    if (!drafts[a.specialistId] && !plan.unassign.some((u) => u.specialistId === a.specialistId)) plan.unassign.push({ specialistId: a.specialistId });
  }
  return plan;
}

export function isEmptyPlan(plan: SavePlan): boolean {
  return plan.assign.length + plan.update.length + plan.unassign.length === 0;
}

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
