import { ActionIcon, Alert, Group, Loader, Paper, Stack, Text, Title, VisuallyHidden } from '@mantine/core';
import type { ConversationDto, MessageDto } from '@contracts';
import { Fragment, useCallback, useEffect, useRef, useState } from 'react';
import { useCurrentUser } from '../../../auth/current-user';
import { Composer } from '../../../conversations/Composer';
import { Bubble, DaySeparator, PersonAvatar, ThreadScroll, storedMessageParts } from '../../../conversations/MessageBubble';
import { StatusBadge } from '../../../conversations/StatusBadge';
import { conversationTitle, useConversationLive, useThread } from '../../../conversations/thread';
import { dayKey } from '../../../conversations/time';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import { ClientThreadActions } from './ClientThreadActions';
import type { LiveReply, ReplyStream } from './useReplyStream';

const ANNOUNCED_CHARS = 140;
const time = (message: MessageDto) => Date.parse(message.createdAt);

/**
 * One entry of the client's thread: a stored message, or the Specialist's reply as it is written.
 * Both are the same bubble, so a streamed reply that is stored stays where it grew.
 */
function ClientEntry({ message, live, conversation, user }: { message?: MessageDto; live?: LiveReply; conversation: ConversationDto; user: { id: string; name: string } }) {
  const specialist = <PersonAvatar name={conversation.specialist.name} src={conversation.specialist.avatarUrl} />;
  if (!message) {
    return (
      <Bubble
        side="start"
        tone="plain"
        author={conversation.specialist.name}
        avatar={specialist}
        badges={<Loader size="xs" type="dots" aria-label="Writing" />}
        content={live?.text || 'Writing…'}
        data={{ 'data-testid': 'streaming-reply', 'data-streaming': Boolean(live?.text) }}
      />
    );
  }
  if (message.role === 'client') {
    const own = message.sender_id === user.id;
    return <Bubble side="end" tone="own" author={own ? 'You' : 'Your team'} avatar={<PersonAvatar name={own ? user.name : 'Your team'} />} {...storedMessageParts(message)} />;
  }
  // A follow-up written behind the Specialist reaches a client as the Specialist's (spec 1).
  return <Bubble side="start" tone="plain" author={conversation.specialist.name} avatar={specialist} {...storedMessageParts(message)} />;
}

/** The beginning of a text, for an announcement. */
function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > ANNOUNCED_CHARS ? `${flat.slice(0, ANNOUNCED_CHARS)}…` : flat;
}

/**
 * Tells a screen reader about each new reply (the Specialist's name and the text's beginning): the
 * text of a polite live region changes when a reply arrives after the thread was shown.
 */
function useReplyAnnouncement(messages: readonly MessageDto[], loaded: boolean, specialistName: string, question: MessageDto | null, onAnnounced: (questionId: string) => void): string {
  const [announcement, setAnnouncement] = useState('');
  const newest = useRef<number | null>(null);
  // The message sent from this page whose reply was announced.
  const answered = useRef<string | null>(null);
  useEffect(() => {
    if (!loaded) return;
    let reply: MessageDto | undefined;
    if (newest.current === null) {
      const last = messages.at(-1);
      newest.current = last ? time(last) : 0;
    } else {
      const since = newest.current;
      const fresh = messages.filter((message) => time(message) > since);
      if (fresh.length > 0) {
        newest.current = time(fresh.at(-1)!);
        reply = fresh.filter((message) => message.role !== 'client').at(-1);
      }
    }
    // The reply to what was sent from this page is news even when the thread was first shown with it
    // already there (a fast reply to the message that opened the thread).
    if (question && answered.current !== question.id) {
      const toQuestion = messages.filter((message) => message.role !== 'client' && message.id !== question.id && time(message) >= time(question)).at(-1);
      if (toQuestion) {
        answered.current = question.id;
        onAnnounced(question.id);
        reply ??= toQuestion;
      }
    }
    if (reply) setAnnouncement(`${specialistName} replied: ${excerpt(reply.content)}`);
  }, [messages, loaded, specialistName, question, onAnnounced]);
  return announcement;
}

/** A client's thread: status and its actions, the messages by day, the reply as it streams, the message box. */
export function ClientThread({ conversationId, stream, onBack }: { conversationId: string; stream: ReplyStream; onBack?: () => void }) {
  const user = useCurrentUser();
  const { query, conversation, messages } = useThread(conversationId);
  useConversationLive(conversationId);
  const live = stream.live?.conversationId === conversationId ? stream.live : null;
  const problem = stream.problem?.conversationId === conversationId ? stream.problem : null;
  // Opened by its first message (still streaming, or already answered: a fast reply can end the
  // stream before this thread mounts): the box keeps the focus it had.
  const [openedLive] = useState(() => live !== null || stream.awaitingAnnouncement(conversationId) !== null);
  // The message sent from this page: while its reply streams, and after (a fast reply may end the
  // stream before this thread is first shown), until its reply is announced.
  const sentHere = live?.question ?? stream.awaitingAnnouncement(conversationId);
  const { announced } = stream;
  const onAnnounced = useCallback((questionId: string) => announced(conversationId, questionId), [announced, conversationId]);
  const announcement = useReplyAnnouncement(messages, query.isSuccess, conversation?.specialist.name ?? '', sentHere, onAnnounced);

  if (query.isPending) return <SectionLoader label="Loading the conversation" />;
  if (!conversation) return <QueryAlert title="Could not load the conversation" error={query.error} retry={() => void query.refetch()} />;

  // The stored reply of the live message (from the stream, or pushed first): it takes the live bubble's key.
  const question = live?.question;
  const storedReply = live && (live.reply ?? (question ? messages.find((m) => m.role !== 'client' && m.id !== question.id && time(m) >= time(question)) : undefined));
  const replyShown = storedReply !== undefined && storedReply !== null && messages.some((m) => m.id === storedReply.id);
  const keyOf = (message: MessageDto) => (live && storedReply?.id === message.id ? live.key : (stream.keyOf(message.id) ?? message.id));
  const humanRequestedAt = query.data?.pages[0]?.humanRequestedAt ?? null;

  return (
    <Paper withBorder p="sm" h="100%" style={{ display: 'flex', flexDirection: 'column', minHeight: 0 }} data-testid="conversation-thread" data-id={conversation.id} data-status={conversation.status}>
      <Stack gap="xs" mb="xs">
        <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs">
          <Group gap="sm" wrap="nowrap" miw={0}>
            {onBack && (
              <ActionIcon variant="subtle" size="lg" onClick={onBack} aria-label="Back to conversations" data-testid="thread-back">
                <span aria-hidden="true">←</span>
              </ActionIcon>
            )}
            <PersonAvatar name={conversation.specialist.name} src={conversation.specialist.avatarUrl} size={40} />
            <Stack gap={0} miw={0}>
              <Title order={2} size="h5" lineClamp={1} data-testid="conversation-title">
                {conversationTitle(conversation)}
              </Title>
              <Text size="xs" c="dimmed" truncate>
                With {conversation.specialist.name}, your Specialist
              </Text>
            </Stack>
          </Group>
          <div style={{ flexShrink: 0 }}>
            <StatusBadge status={conversation.status} />
          </div>
        </Group>
        <ClientThreadActions conversation={conversation} humanRequestedAt={humanRequestedAt} />
      </Stack>
      <ThreadScroll
        fill
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
        {/* One list, the live reply last: keyed alike, a stored reply keeps the element it grew in. */}
        {[
          ...messages.map((message, index) => (
            <Fragment key={keyOf(message)}>
              {(index === 0 || dayKey(messages[index - 1]!.createdAt) !== dayKey(message.createdAt)) && <DaySeparator iso={message.createdAt} />}
              <ClientEntry message={message} conversation={conversation} user={user} />
            </Fragment>
          )),
          live && !replyShown && (
            <Fragment key={live.key}>
              {/* The place of a day separator, so the bubble keeps its place once the reply is stored. */}
              {null}
              <ClientEntry live={live} conversation={conversation} user={user} />
            </Fragment>
          ),
        ]}
      </ThreadScroll>
      <VisuallyHidden aria-live="polite" aria-atomic="true" role="status" data-testid="reply-announcer">
        {announcement}
      </VisuallyHidden>
      {problem && (
        <Alert color="orange" role="alert" withCloseButton onClose={stream.dismissProblem} data-testid="reply-problem" mt="xs">
          {problem.message}
        </Alert>
      )}
      <div style={{ marginTop: 'var(--mantine-spacing-xs)' }}>
        <Composer
          label={`Message to ${conversation.specialist.name}`}
          placeholder={`Write to ${conversation.specialist.name}`}
          submitLabel="Send"
          disabled={stream.live !== null}
          autoFocus={openedLive}
          onSend={(content) => stream.send(conversationId, content)}
        />
      </div>
    </Paper>
  );
}
