import { Alert, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import type { ConversationDto, MessageDto } from '@contracts';
import { useCurrentUser } from '../../../auth/current-user';
import { Composer } from '../../../conversations/Composer';
import { Bubble, MessageBubble, ThreadScroll } from '../../../conversations/MessageBubble';
import { StatusBadge } from '../../../conversations/StatusBadge';
import { conversationTitle, useConversationLive, useThread } from '../../../conversations/thread';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import { ClientThreadActions } from './ClientThreadActions';
import { CLIENT_STATUS_LABELS } from './client-status';
import type { LiveReply, ReplyStream } from './useReplyStream';

function ClientMessage({ message, conversation, userId }: { message: MessageDto; conversation: ConversationDto; userId: string }) {
  if (message.role === 'client') {
    return <MessageBubble message={message} side="end" tone="own" author={message.sender_id === userId ? 'You' : 'Your team'} />;
  }
  // A follow-up written behind the Specialist reaches a client as the Specialist's (spec 1).
  return <MessageBubble message={message} side="start" tone="plain" author={conversation.specialist.name} />;
}

/** The Specialist's reply while it is written. */
function StreamingReply({ live, specialistName }: { live: LiveReply; specialistName: string }) {
  return (
    <Bubble
      side="start"
      tone="plain"
      author={specialistName}
      badges={<Loader size="xs" type="dots" aria-label="Writing" />}
      content={live.text || 'Writing…'}
      data={{ 'data-testid': 'streaming-reply', 'data-streaming': live.text !== '' }}
    />
  );
}

/** A client's thread: status and its actions, the messages, the reply as it streams, the message box. */
export function ClientThread({ conversationId, stream }: { conversationId: string; stream: ReplyStream }) {
  const user = useCurrentUser();
  const { query, conversation, messages } = useThread(conversationId);
  useConversationLive(conversationId);
  const live = stream.live?.conversationId === conversationId && !stream.live.replied ? stream.live : null;
  const problem = stream.problem?.conversationId === conversationId ? stream.problem : null;

  if (query.isPending) return <SectionLoader label="Loading the conversation" />;
  if (!conversation) return <QueryAlert title="Could not load the conversation" error={query.error} retry={() => void query.refetch()} />;

  return (
    <Paper withBorder p="md" data-testid="conversation-thread" data-id={conversation.id} data-status={conversation.status}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <Stack gap={2}>
            <Title order={2} size="h4" data-testid="conversation-title">
              {conversationTitle(conversation)}
            </Title>
            <Text size="sm" c="dimmed">
              With {conversation.specialist.name}, your Specialist
            </Text>
          </Stack>
          <StatusBadge status={conversation.status} label={CLIENT_STATUS_LABELS} />
        </Group>
        <ClientThreadActions conversation={conversation} />
        <ThreadScroll
          followKey={`${messages.length}:${messages.at(-1)?.id ?? ''}:${live?.text.length ?? -1}`}
          hasOlder={query.hasNextPage}
          loadingOlder={query.isFetchingNextPage}
          onLoadOlder={() => void query.fetchNextPage()}
        >
          {messages.length === 0 && !live && (
            <Text size="sm" c="dimmed" ta="center" data-testid="thread-empty">
              Write your first message to {conversation.specialist.name}.
            </Text>
          )}
          {messages.map((message) => (
            <ClientMessage key={message.id} message={message} conversation={conversation} userId={user.id} />
          ))}
          {live && <StreamingReply live={live} specialistName={conversation.specialist.name} />}
        </ThreadScroll>
        {problem && (
          <Alert color="orange" role="alert" withCloseButton onClose={stream.dismissProblem} data-testid="reply-problem">
            {problem.message}
          </Alert>
        )}
        <Composer
          label="Message"
          placeholder={`Write to ${conversation.specialist.name}`}
          submitLabel="Send"
          disabled={stream.live !== null}
          onSend={(content) => stream.send(conversationId, content)}
        />
      </Stack>
    </Paper>
  );
}
