import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import type { ConversationDto } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCurrentUser } from '../../auth/current-user';
import { conversationsApi } from '../../conversations/conversations.api';
import { conversationChanged } from '../../conversations/thread';
import { AssignedExpert } from './QueueTable';

/** Who works on the thread; an Expert takes it ("Assign to me"), anyone of staff may clear it. */
export function AssignControl({ conversation }: { conversation: ConversationDto }) {
  const user = useCurrentUser();
  const queryClient = useQueryClient();
  const assign = useMutation({
    mutationFn: (expertId: string | null) => conversationsApi.assign(conversation.id, expertId),
    onSuccess: (updated) => conversationChanged(queryClient, updated, updated.id),
  });
  const assigned = conversation.assigned_expert_id;
  const mine = assigned === user.id;

  return (
    <Stack gap="xs">
      <Group gap="xs">
        <Text size="sm" c="dimmed">
          Assigned to
        </Text>
        <Text size="sm" data-testid="assigned-expert" data-assigned={assigned ?? ''}>
          <AssignedExpert expertId={assigned} currentUserId={user.id} />
        </Text>
      </Group>
      <Group gap="xs">
        {user.platformRole === 'expert' && !mine && (
          <Button size="xs" variant="light" loading={assign.isPending && assign.variables !== null} onClick={() => assign.mutate(user.id)} data-testid="assign-to-me">
            Assign to me
          </Button>
        )}
        {assigned && (
          <Button size="xs" variant="default" loading={assign.isPending && assign.variables === null} onClick={() => assign.mutate(null)} data-testid="unassign">
            Unassign
          </Button>
        )}
      </Group>
      {assign.error && (
        <Alert color="red" role="alert">
          {assign.error.message}
        </Alert>
      )}
    </Stack>
  );
}
