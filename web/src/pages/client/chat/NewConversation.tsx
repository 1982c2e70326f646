import { Alert, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useState } from 'react';
import { conversationKeys, conversationsApi, type ThreadDto } from '../../../conversations/conversations.api';
import { Composer } from '../../../conversations/Composer';
import type { ReplyStream } from './useReplyStream';

/**
 * A conversation not started yet: the first message creates it (with the org's primary
 * Specialist), opens it, and streams the reply there.
 */
export function NewConversation({ stream, onCreated }: { stream: ReplyStream; onCreated: (id: string) => void }) {
  const queryClient = useQueryClient();
  const [subject, setSubject] = useState('');
  const [error, setError] = useState<string | null>(null);

  const start = async (content: string): Promise<boolean> => {
    setError(null);
    let created;
    try {
      created = await conversationsApi.create(subject.trim() ? { subject: subject.trim() } : {});
    } catch (cause) {
      setError(cause instanceof Error ? cause.message : 'The conversation could not be started.');
      return false;
    }
    const { messages, ...conversation } = created;
    queryClient.setQueryData<InfiniteData<ThreadDto, string | undefined>>(conversationKeys.thread(conversation.id), {
      pages: [{ conversation, messages, nextCursor: null }],
      pageParams: [undefined],
    });
    void queryClient.invalidateQueries({ queryKey: conversationKeys.lists });
    onCreated(conversation.id);
    return stream.send(conversation.id, content);
  };

  return (
    <Paper withBorder p="md" data-testid="new-conversation-form">
      <Stack gap="sm">
        <Title order={2} size="h4">
          New conversation
        </Title>
        <Text size="sm" c="dimmed">
          Your Specialist answers right away.
        </Text>
        <TextInput
          label="Subject"
          description="Optional"
          maxLength={300}
          value={subject}
          onChange={(event) => setSubject(event.currentTarget.value)}
          data-testid="new-conversation-subject"
        />
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        <Composer label="Message" placeholder="How can we help?" submitLabel="Start conversation" disabled={stream.live !== null} onSend={start} />
      </Stack>
    </Paper>
  );
}
