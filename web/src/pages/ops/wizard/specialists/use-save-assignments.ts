import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { amApi } from '../../../../ops/am.api';
import { apiFieldErrors, type FieldErrors } from '../../../../ops/errors';
import { useInvalidateOrg } from '../../../../ops/queries';
import { isEmptyPlan, validatePlan, type SavePlan } from './assignment-draft';

export interface SaveFailure {
  specialistId: string;
  action: 'assign' | 'update' | 'unassign';
  message: string;
  fields: FieldErrors;
}

export interface SaveOutcome {
  failures: SaveFailure[];
  /** Phase 2 (unassignments) runs only when phase 1 fully succeeded. */
  unassignSkipped: boolean;
}

function failureOf(specialistId: string, action: SaveFailure['action'], error: unknown): SaveFailure {
  return { specialistId, action, message: error instanceof Error ? error.message : 'Failed', fields: apiFieldErrors(error) };
}

/** Runs one step of the plan; a refusal is recorded and the rest of the phase still runs. */
async function attempt(failures: SaveFailure[], specialistId: string, action: SaveFailure['action'], run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    failures.push(failureOf(specialistId, action, error));
  }
}

/** Saves the Specialist step in two phases (spec 4.2), one request at a time. */
export async function runPlan(orgId: string, plan: SavePlan): Promise<SaveOutcome> {
  const failures: SaveFailure[] = [];
  for (const { specialistId, body } of plan.assign) await attempt(failures, specialistId, 'assign', () => amApi.assign(orgId, body));
  for (const { specialistId, assignmentId, body } of plan.update) {
    await attempt(failures, specialistId, 'update', () => amApi.updateAssignment(orgId, assignmentId, body));
  }
  if (failures.length > 0) return { failures, unassignSkipped: plan.unassign.length > 0 };
  for (const { specialistId } of plan.unassign) await attempt(failures, specialistId, 'unassign', () => amApi.unassign(orgId, specialistId));
  return { failures, unassignSkipped: false };
}

export function useSaveAssignments(orgId: string, onDone: () => void) {
  const invalidateOrg = useInvalidateOrg();
  const [rowErrors, setRowErrors] = useState<Record<string, FieldErrors>>({});
  const mutation = useMutation({
    mutationFn: async (plan: SavePlan) => {
      try {
        return await runPlan(orgId, plan);
      } finally {
        await invalidateOrg(orgId);
      }
    },
    onSuccess: (outcome) => {
      setRowErrors(Object.fromEntries(outcome.failures.map((f) => [f.specialistId, f.fields])));
      if (outcome.failures.length === 0) onDone();
    },
  });

  const save = (plan: SavePlan) => {
    const errors = validatePlan(plan);
    setRowErrors(errors);
    mutation.reset();
    if (Object.keys(errors).length > 0) return;
    if (isEmptyPlan(plan)) onDone();
    else mutation.mutate(plan);
  };

  return { save, rowErrors, outcome: mutation.data, error: mutation.error, isPending: mutation.isPending };
}
