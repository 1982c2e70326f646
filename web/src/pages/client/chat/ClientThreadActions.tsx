import { Alert, Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import type { ConversationDto } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { conversationsApi, type StatusAction } from '../../../conversations/conversations.api';
import { conversationChanged } from '../../../conversations/thread';

const ACTIONS: readonly { action: StatusAction; label: string; when: readonly ConversationDto['status'][]; variant: string }[] = [
  { action: 'resolve', label: 'Resolve', when: ['pending', 'awaiting_client'], variant: 'light' },
  { action: 'dismiss', label: 'Dismiss', when: ['awaiting_client'], variant: 'default' },
  { action: 'reopen', label: 'Reopen', when: ['resolved'], variant: 'light' },
];

/** Resolve, Reopen and Dismiss (spec 3.1) and "Ask for a human" (an escalation). */
export function ClientThreadActions({ conversation }: { conversation: ConversationDto }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  const [asked, setAsked] = useState(false);

  const act = useMutation({
    mutationFn: (action: StatusAction) => conversationsApi.act(conversation.id, action),
    onSuccess: (updated) => conversationChanged(queryClient, updated, updated.id),
  });
  const escalate = useMutation({
    mutationFn: () => conversationsApi.escalate(conversation.id, reason.trim() ? { reason: reason.trim() } : {}),
    onSuccess: (updated) => {
      conversationChanged(queryClient, updated, updated.id);
      setAsking(false);
      setReason('');
      setAsked(true);
    },
  });

  return (
    <Stack gap="xs">
      <Group gap="xs">
        {ACTIONS.filter((entry) => entry.when.includes(conversation.status)).map((entry) => (
          <Button
            key={entry.action}
            size="xs"
            variant={entry.variant}
            loading={act.isPending && act.variables === entry.action}
            onClick={() => act.mutate(entry.action)}
            data-testid={`conversation-${entry.action}`}
          >
            {entry.label}
          </Button>
        ))}
        <Button size="xs" variant="outline" color="orange" onClick={() => setAsking(true)} data-testid="conversation-escalate">
          Ask for a human
        </Button>
      </Group>
      {act.error && (
        <Alert color="red" role="alert" onClose={() => act.reset()} withCloseButton>
          {act.error.message}
        </Alert>
      )}
      {asked && conversation.status === 'pending' && (
        <Alert color="orange" data-testid="escalated-notice" withCloseButton onClose={() => setAsked(false)}>
          You asked for a human. Someone from the team will reply in this conversation.
        </Alert>
      )}
      <Modal opened={asking} onClose={() => setAsking(false)} title="Ask for a human">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            escalate.mutate();
          }}
        >
          <Stack>
            <Text size="sm">A person from the team will look at this conversation and reply here.</Text>
            <Textarea
              label="What do you need help with?"
              description="Optional"
              autosize
              minRows={2}
              maxLength={2000}
              value={reason}
              onChange={(event) => setReason(event.currentTarget.value)}
              data-testid="escalate-reason"
            />
            {escalate.error && (
              <Alert color="red" role="alert">
                {escalate.error.message}
              </Alert>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setAsking(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={escalate.isPending} data-testid="escalate-confirm">
                Ask for a human
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Stack>
  );
}
