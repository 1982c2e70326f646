import { Alert, Button, NativeSelect, Stack, TextInput } from '@mantine/core';
import { CONVERSATION_STATUSES, type ConversationDto, type ConversationStatus } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { fieldErrorsOf, formErrorOf } from '../../api/client';
import { conversationsApi } from '../../conversations/conversations.api';
import { STATUS_LABELS } from '../../conversations/StatusBadge';
import { conversationChanged } from '../../conversations/thread';

/** `YYYY-MM-DDTHH:mm` of a datetime-local input, in the browser's time zone. */
function localInputValue(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

const TOMORROW_MS = 24 * 3600_000;

/** Set status (spec 3.1: Experts, AMs and SuperAdmins): any status; snoozed needs its resurface time. */
export function StatusForm({ conversation }: { conversation: ConversationDto }) {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<ConversationStatus>(conversation.status);
  const [snoozeUntil, setSnoozeUntil] = useState(() => localInputValue(new Date(Date.now() + TOMORROW_MS)));
  const save = useMutation({
    mutationFn: () => conversationsApi.setStatus(conversation.id, status === 'snoozed' ? { status, snoozeUntil: new Date(snoozeUntil).toISOString() } : { status }),
    onSuccess: (updated) => conversationChanged(queryClient, updated, updated.id),
  });
  const snoozeValid = status !== 'snoozed' || !Number.isNaN(new Date(snoozeUntil).getTime());
  const unchanged = status === conversation.status && status !== 'snoozed';

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <Stack gap="xs">
        <NativeSelect
          label="Status"
          value={status}
          onChange={(event) => setStatus(event.currentTarget.value as ConversationStatus)}
          data={CONVERSATION_STATUSES.map((value) => ({ value, label: STATUS_LABELS[value] }))}
          data-testid="status-select"
        />
        {status === 'snoozed' && (
          <TextInput
            type="datetime-local"
            label="Snooze until"
            description="The conversation comes back as pending then"
            required
            min={localInputValue(new Date())}
            value={snoozeUntil}
            onChange={(event) => setSnoozeUntil(event.currentTarget.value)}
            error={fieldErrorsOf(save.error).snoozeUntil}
            data-testid="snooze-until"
          />
        )}
        {formErrorOf(save.error, ['snoozeUntil']) && (
          <Alert color="red" role="alert">
            {formErrorOf(save.error, ['snoozeUntil'])}
          </Alert>
        )}
        <Button type="submit" loading={save.isPending} disabled={unchanged || !snoozeValid} data-testid="status-save">
          Set status
        </Button>
      </Stack>
    </form>
  );
}
