import { Alert, List } from '@mantine/core';
import { gateMissingOf, missingLabel } from './gate';

/** The refusal of an invite or finish: the message, and what the Phase 0 gate misses (409 `phase0_gate_failed`). */
export function SetupActionError({ title, error, message }: { title: string; error: unknown; message: string | null }) {
  if (!error || !message) return null;
  const missing = gateMissingOf(error);
  return (
    <Alert color="red" role="alert" title={title} data-testid="setup-action-error">
      {message}
      {missing.length > 0 && (
        <List size="sm" mt="xs" data-testid="gate-missing">
          {missing.map((item) => (
            <List.Item key={item}>{missingLabel(item)}</List.Item>
          ))}
        </List>
      )}
    </Alert>
  );
}
