import { isEmptyPlan, runSpecialistStep, type SavePlan, type SpecialistStepFailure } from '@contracts';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { amApi } from '../../../../ops/am.api';
import { toast } from '../../../../layout/toast';
import { apiFieldErrors, type FieldErrors } from '../../../../ops/errors';
import { useInvalidateOrg } from '../../../../ops/queries';
import { validatePlan } from './assignment-draft';

export interface SaveFailure {
  specialistId: string;
  action: SpecialistStepFailure['action'];
  message: string;
  fields: FieldErrors;
}

export interface SaveOutcome {
  failures: SaveFailure[];
  /** Phase 2 (unassignments) runs only when phase 1 fully succeeded. */
  unassignSkipped: boolean;
}

/** Saves the Specialist step in two phases (spec 4.2), one request at a time. */
export async function runPlan(orgId: string, plan: SavePlan): Promise<SaveOutcome> {
  const outcome = await runSpecialistStep(plan, {
    assign: (body) => amApi.assign(orgId, body),
    update: (assignmentId, body) => amApi.updateAssignment(orgId, assignmentId, body),
    unassign: (specialistId) => amApi.unassign(orgId, specialistId),
  });
  return {
    unassignSkipped: outcome.unassignSkipped,
    failures: outcome.failures.map(({ specialistId, action, error }) => ({
      specialistId,
      action,
      message: error instanceof Error ? error.message : 'Failed',
      fields: apiFieldErrors(error),
    })),
  };
}

/** A plan that unassigns a Specialist or changes a running rate: the AM confirms it first. */
export function needsConfirmation(plan: SavePlan): boolean {
  return plan.unassign.length > 0 || plan.update.length > 0;
}

/**
 * Saves the Specialist step: every row's errors at once, then (for unassignments and rate changes)
 * a confirmation, then the two phases; a toast when everything went through.
 */
export function useSaveAssignments(orgId: string, onDone: () => void) {
  const invalidateOrg = useInvalidateOrg();
  const [rowErrors, setRowErrors] = useState<Record<string, FieldErrors>>({});
  const [awaiting, setAwaiting] = useState<SavePlan | null>(null);
  const mutation = useMutation({
    mutationFn: async (plan: SavePlan) => {
      try {
        return await runPlan(orgId, plan);
      } finally {
        await invalidateOrg(orgId);
      }
    },
    onSuccess: (outcome) => {
      setAwaiting(null);
      setRowErrors(Object.fromEntries(outcome.failures.map((f) => [f.specialistId, f.fields])));
      if (outcome.failures.length === 0) {
        toast.success('The Specialists of this org are saved.');
        onDone();
      }
    },
    onError: () => setAwaiting(null),
  });

  const save = (plan: SavePlan) => {
    const errors = validatePlan(plan);
    setRowErrors(errors);
    mutation.reset();
    if (Object.keys(errors).length > 0) return;
    if (isEmptyPlan(plan)) onDone();
    else if (needsConfirmation(plan)) setAwaiting(plan);
    else mutation.mutate(plan);
  };

  return {
    save,
    rowErrors,
    outcome: mutation.data,
    error: mutation.error,
    isPending: mutation.isPending,
    /** The plan waiting for the AM's confirmation. */
    awaiting,
    confirm: () => awaiting && mutation.mutate(awaiting),
    cancel: () => setAwaiting(null),
  };
}
