import { Alert, List } from '@mantine/core';
import type { SaveOutcome } from './use-save-assignments';

const ACTIONS = { assign: 'Assign', update: 'Update rate of', unassign: 'Unassign' } as const;

/** What did not go through on the last save (the rest was saved). */
export function SaveOutcomeAlert({ outcome, nameOf }: { outcome: SaveOutcome | undefined; nameOf: (specialistId: string) => string }) {
  if (!outcome || outcome.failures.length === 0) return null;
  return (
    <Alert color="red" role="alert" title="Some changes were not saved">
      <List size="sm">
        {outcome.failures.map((f) => (
          <List.Item key={`${f.action}-${f.specialistId}`}>
            {ACTIONS[f.action]} {nameOf(f.specialistId)}: {f.message}
          </List.Item>
        ))}
      </List>
      {outcome.unassignSkipped && 'The deselected Specialists were not unassigned, because the assignments above failed.'}
    </Alert>
  );
}
