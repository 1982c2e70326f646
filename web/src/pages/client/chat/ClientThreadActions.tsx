import { Alert, Badge, Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import type { ConversationDto } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { conversationKeys, conversationsApi, type StatusAction } from '../../../conversations/conversations.api';
import { RelativeTime } from '../../../conversations/MessageBubble';
import { conversationChanged, type ThreadPages } from '../../../conversations/thread';

const ACTIONS: readonly { action: StatusAction; label: string; when: readonly ConversationDto['status'][]; variant: string }[] = [
  { action: 'resolve', label: 'Resolve', when: ['pending', 'awaiting_client'], variant: 'light' },
  { action: 'dismiss', label: 'Dismiss', when: ['awaiting_client'], variant: 'default' },
  { action: 'reopen', label: 'Reopen', when: ['resolved'], variant: 'light' },
];

/**
 * Resolve, Reopen and Dismiss (spec 3.1) and "Ask for a human" (an escalation). Once asked (as
 * the server keeps it: `humanRequestedAt` of the thread), the request shows instead of the button,
 * so it cannot be sent twice.
 */
export function ClientThreadActions({ conversation, humanRequestedAt }: { conversation: ConversationDto; humanRequestedAt: string | null }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');

  const act = useMutation({
    mutationFn: (action: StatusAction) => conversationsApi.act(conversation.id, action),
    onSuccess: (updated) => conversationChanged(queryClient, updated, updated.id),
  });
  const escalate = useMutation({
    mutationFn: () => conversationsApi.escalate(conversation.id, reason.trim() ? { reason: reason.trim() } : {}),
    onSuccess: (updated) => {
      conversationChanged(queryClient, updated, updated.id);
      // Shown at once; the stored request (its time) is read back once.
      queryClient.setQueryData<ThreadPages>(conversationKeys.thread(updated.id), (data) => {
        const [first, ...rest] = data?.pages ?? [];
        return data && first ? { ...data, pages: [{ ...first, humanRequestedAt: first.humanRequestedAt ?? new Date().toISOString() }, ...rest] } : data;
      });
      void queryClient.invalidateQueries({ queryKey: conversationKeys.thread(updated.id) });
      setAsking(false);
      setReason('');
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
        {humanRequestedAt ? (
          <Badge variant="light" color="orange" size="lg" tt="none" fw={500} data-testid="escalated-notice">
            <Group gap={6} wrap="nowrap">
              A person from the team was asked
              <RelativeTime iso={humanRequestedAt} />
            </Group>
          </Badge>
        ) : (
          <Button size="xs" variant="outline" color="orange" onClick={() => setAsking(true)} data-testid="conversation-escalate">
            Ask for a human
          </Button>
        )}
      </Group>
      {act.error && (
        <Alert color="red" role="alert" onClose={() => act.reset()} withCloseButton>
          {act.error.message}
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
              <Button type="submit" loading={escalate.isPending} disabled={humanRequestedAt !== null} data-testid="escalate-confirm">
                Ask for a human
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Stack>
  );
}
