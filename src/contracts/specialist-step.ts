import type { AssignSpecialistInput, OsaDto, UpdateAssignmentInput } from './assignments.js';

/**
 * The save of the AM wizard's Specialist step (spec 4.2), shared by the web page and its tests:
 * phase 1 assigns new entries (POST) and updates changed ones (PATCH), skipping unchanged ones;
 * phase 2 unassigns deselected entries (DELETE) only when every request of phase 1 succeeded.
 */

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
 * New selections are assigned (in the order they were picked: the first assignment of an org
 * becomes primary), changed rates updated, unchanged ones skipped, deselected ones unassigned.
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

/** The three requests of the step; each rejects when the server refuses. */
export interface SpecialistStepCalls {
  assign(body: AssignSpecialistInput): Promise<unknown>;
  update(assignmentId: string, body: UpdateAssignmentInput): Promise<unknown>;
  unassign(specialistId: string): Promise<unknown>;
}

export interface SpecialistStepFailure {
  specialistId: string;
  action: 'assign' | 'update' | 'unassign';
  error: unknown;
}

export interface SpecialistStepOutcome {
  failures: SpecialistStepFailure[];
  /** Phase 2 (unassignments) runs only when phase 1 fully succeeded. */
  unassignSkipped: boolean;
}

/**
 * Runs the plan one request at a time: a refusal is recorded and the rest of its phase still
 * runs; any refusal in phase 1 leaves every assignment the AM deselected in place.
 */
export async function runSpecialistStep(plan: SavePlan, calls: SpecialistStepCalls): Promise<SpecialistStepOutcome> {
  const failures: SpecialistStepFailure[] = [];
  const attempt = async (specialistId: string, action: SpecialistStepFailure['action'], run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (error) {
      failures.push({ specialistId, action, error });
    }
  };
  for (const { specialistId, body } of plan.assign) await attempt(specialistId, 'assign', () => calls.assign(body));
  for (const { specialistId, assignmentId, body } of plan.update) await attempt(specialistId, 'update', () => calls.update(assignmentId, body));
  if (failures.length > 0) return { failures, unassignSkipped: plan.unassign.length > 0 };
  for (const { specialistId } of plan.unassign) await attempt(specialistId, 'unassign', () => calls.unassign(specialistId));
  return { failures, unassignSkipped: false };
}
