import type { ConversationDto, MessageDto } from '@contracts';
import type { ConversationStatusPayload, MessageEventPayload } from '@contracts/realtime';
import { useInfiniteQuery, useQueryClient, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { applyPush, listen, useRealtime } from '../realtime/socket';
import { conversationKeys, conversationsApi, type ThreadDto } from './conversations.api';

const PAGE_SIZE = 50;

/** The first page holds the newest messages and the conversation; later pages are older messages. */
type ThreadPages = InfiniteData<ThreadDto, string | undefined>;

const NO_MESSAGES: MessageDto[] = [];

const time = (message: MessageDto) => Date.parse(message.createdAt);

/** `incoming` put into `list` by id (a correction replaces its message), oldest first. */
export function mergeMessages(list: readonly MessageDto[], incoming: readonly MessageDto[]): MessageDto[] {
  const byId = new Map(list.map((message) => [message.id, message]));
  for (const message of incoming) byId.set(message.id, message);
  return [...byId.values()].sort((a, b) => time(a) - time(b) || a.id.localeCompare(b.id));
}

/** A thread and its messages (newest page first; `fetchNextPage` loads older ones). */
export function useThread(conversationId: string | undefined) {
  const query = useInfiniteQuery({
    queryKey: conversationKeys.thread(conversationId ?? ''),
    queryFn: ({ pageParam, signal }) => conversationsApi.thread(conversationId!, { limit: PAGE_SIZE, before: pageParam }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    enabled: Boolean(conversationId),
  });
  const pages = query.data?.pages;
  // Pages overlap once new messages push older ones down: deduplicated by id.
  const messages = useMemo(() => (pages ? pages.reduce<MessageDto[]>((all, page) => mergeMessages(all, page.messages), []) : NO_MESSAGES), [pages]);
  return { query, conversation: pages?.[0]?.conversation, messages };
}

function updateFirstPage(queryClient: QueryClient, conversationId: string, update: (page: ThreadDto) => ThreadDto): void {
  applyPush<ThreadPages>(queryClient, conversationKeys.thread(conversationId), (data) => {
    const [first, ...rest] = data?.pages ?? [];
    return data && first ? { ...data, pages: [update(first), ...rest] } : data;
  });
}

/** Puts messages (sent, streamed, pushed) into the cached thread. */
export function addMessages(queryClient: QueryClient, conversationId: string, messages: readonly MessageDto[]): void {
  updateFirstPage(queryClient, conversationId, (page) => ({ ...page, messages: mergeMessages(page.messages, messages) }));
}

/** After a change of the conversation: the thread shows it, and the lists that show it reload. */
export function conversationChanged(queryClient: QueryClient, conversation: ConversationDto | null, conversationId: string): void {
  if (conversation) updateFirstPage(queryClient, conversationId, (page) => ({ ...page, conversation }));
  void queryClient.invalidateQueries({ queryKey: conversationKeys.lists });
  void queryClient.invalidateQueries({ queryKey: conversationKeys.queue });
}

/**
 * Keeps an open thread live: joins its room (`join_conversation`) on every (re)connect, refetches
 * it once joined (pushes are not replayed), and merges the pushed messages and status changes.
 */
export function useConversationLive(conversationId: string | undefined): void {
  const queryClient = useQueryClient();
  useRealtime(
    (socket) => {
      if (!conversationId) return () => undefined;
      const onMessage = ({ conversationId: id, message }: MessageEventPayload) => {
        if (id !== conversationId) return;
        addMessages(queryClient, id, [message]);
        void queryClient.invalidateQueries({ queryKey: conversationKeys.lists });
      };
      const onStatus = (change: ConversationStatusPayload) => {
        if (change.conversationId !== conversationId) return;
        updateFirstPage(queryClient, conversationId, (page) => ({
          ...page,
          conversation: { ...page.conversation, status: change.to, resolvedAt: change.resolvedAt, snoozeUntil: change.snoozeUntil, updatedAt: change.at },
        }));
        conversationChanged(queryClient, null, conversationId);
      };
      const join = () =>
        socket.emit('join_conversation', conversationId, (ack) => {
          if (ack.ok) void queryClient.invalidateQueries({ queryKey: conversationKeys.thread(conversationId) });
        });
      const stop = listen(
        socket,
        { agent_message_sent: onMessage, user_message_received: onMessage, workspace_message_added: onMessage, conversation_status_changed: onStatus },
        join,
      );
      if (socket.connected) join();
      return () => {
        stop();
        if (socket.connected) socket.emit('leave_conversation', conversationId);
      };
    },
    [conversationId, queryClient],
  );
}

/** How a thread is named in lists and headings. */
export function conversationTitle(conversation: Pick<ConversationDto, 'subject' | 'specialist'>): string {
  return conversation.subject ?? `Conversation with ${conversation.specialist.name}`;
}
