import { Alert, SegmentedControl, Stack } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Composer } from '../../conversations/Composer';
import { conversationsApi, newIdempotencyKey } from '../../conversations/conversations.api';
import { addMessages } from '../../conversations/thread';

type Kind = 'follow_up' | 'note';

/** A follow-up, sent to the client as the Specialist, or an internal note that stays with staff. */
export function StaffComposer({ conversationId, specialistName }: { conversationId: string; specialistName: string }) {
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<Kind>('follow_up');
  const [error, setError] = useState<string | null>(null);

  const send = async (content: string): Promise<boolean> => {
    setError(null);
    try {
      const { reply: _none, ...message } = await conversationsApi.send(conversationId, { content, isInternal: kind === 'note' }, newIdempotencyKey());
      // The thread shows it at once; a status it changes comes as a push (one reload of the item).
      addMessages(queryClient, conversationId, [message]);
      return true;
    } catch (cause) {
      setError(cause instanceof Error ? cause.message : 'The message could not be sent.');
      return false;
    }
  };

  return (
    <Stack gap="xs">
      {error && (
        <Alert color="red" role="alert" withCloseButton onClose={() => setError(null)}>
          {error}
        </Alert>
      )}
      <Composer
        testId="staff-composer"
        label={kind === 'note' ? 'Internal note' : `Follow-up to the client, as ${specialistName}`}
        placeholder={kind === 'note' ? 'Only Experts and internal staff see this' : 'The client sees this from their Specialist'}
        submitLabel={kind === 'note' ? 'Add internal note' : 'Send follow-up'}
        onSend={send}
        above={
          <SegmentedControl
            value={kind}
            onChange={(value) => setKind(value as Kind)}
            data={[
              { value: 'follow_up', label: 'Follow-up' },
              { value: 'note', label: 'Internal note' },
            ]}
            data-testid="staff-composer-kind"
          />
        }
      />
    </Stack>
  );
}
