import type { ConversationDto, MessageDelivery, MessageDto, PageOf } from '@contracts';
import type { ConversationStatusPayload, MessageDeliveryPayload, MessageEventPayload } from '@contracts/realtime';
import { useInfiniteQuery, useQueryClient, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { applyPush, listen, useRealtime } from '../realtime/socket';
import { conversationKeys, conversationsApi, type ConversationFilter, type ThreadDto } from './conversations.api';

const PAGE_SIZE = 50;

/** The first page holds the newest messages and the conversation; later pages are older messages. */
export type ThreadPages = InfiniteData<ThreadDto, string | undefined>;
/** A cached conversation list (`conversationKeys.list(filter)`). */
type ListPages = InfiniteData<PageOf<ConversationDto>, string | undefined>;

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

/** A channel reply's delivery changed (a held mail went out): the cached message, on whichever page, shows it. */
export function setDelivery(queryClient: QueryClient, conversationId: string, messageId: string, delivery: MessageDelivery): void {
  applyPush<ThreadPages>(queryClient, conversationKeys.thread(conversationId), (data) =>
    data ? { ...data, pages: data.pages.map((page) => ({ ...page, messages: page.messages.map((m) => (m.id === messageId ? { ...m, delivery } : m)) })) } : data,
  );
}

/**
 * Writes a conversation into every cached list, with no request: replaced where it is listed,
 * added where its status now belongs, taken out of a status's list it left.
 */
export function putInLists(queryClient: QueryClient, conversation: ConversationDto): void {
  for (const [queryKey, data] of queryClient.getQueriesData<ListPages>({ queryKey: conversationKeys.lists })) {
    if (!data || data.pages.length === 0) continue;
    const filter = queryKey[2] as ConversationFilter;
    const pages = data.pages.map((page) => ({ ...page, items: page.items.filter((item) => item.id !== conversation.id) }));
    if (filter === 'all' || filter === conversation.status) pages[0] = { ...pages[0]!, items: [conversation, ...pages[0]!.items] };
    queryClient.setQueryData<ListPages>(queryKey, { ...data, pages });
  }
}

/** The conversation as cached (its open thread first, else a list), if anywhere. */
function cachedConversation(queryClient: QueryClient, conversationId: string): ConversationDto | undefined {
  const thread = queryClient.getQueryData<ThreadPages>(conversationKeys.thread(conversationId))?.pages[0]?.conversation;
  if (thread) return thread;
  for (const [, data] of queryClient.getQueriesData<ListPages>({ queryKey: conversationKeys.lists })) {
    const found = data?.pages.flatMap((page) => page.items).find((item) => item.id === conversationId);
    if (found) return found;
  }
  return undefined;
}

/**
 * A part of a conversation changed (pushed, streamed): the cached thread and lists show it with
 * no request. A conversation cached nowhere is for the lists to load: they are asked again.
 */
export function patchConversation(queryClient: QueryClient, conversationId: string, patch: Partial<ConversationDto>): void {
  const current = cachedConversation(queryClient, conversationId);
  if (!current) {
    void queryClient.invalidateQueries({ queryKey: conversationKeys.lists });
    return;
  }
  const next = { ...current, ...patch };
  if (patch.lastMessageAt && Date.parse(patch.lastMessageAt) < Date.parse(current.lastMessageAt)) next.lastMessageAt = current.lastMessageAt;
  updateFirstPage(queryClient, conversationId, (page) => ({ ...page, conversation: next }));
  putInLists(queryClient, next);
}

/** A message was added to a thread: it moves up in the lists. */
function messageAdded(queryClient: QueryClient, message: MessageDto): void {
  patchConversation(queryClient, message.conversationId, { lastMessageAt: message.createdAt });
}

/** Puts messages (sent, streamed, pushed) into the cached thread, and the thread's list entry follows. */
export function addThreadMessages(queryClient: QueryClient, conversationId: string, messages: readonly MessageDto[]): void {
  addMessages(queryClient, conversationId, messages);
  const newest = messages.reduce<MessageDto | undefined>((last, message) => (!last || time(message) > time(last) ? message : last), undefined);
  if (newest) messageAdded(queryClient, newest);
}

/**
 * After a change of the conversation: the thread and the lists show it (written, not fetched);
 * the attention list reloads. Without the changed conversation, the lists reload.
 */
export function conversationChanged(queryClient: QueryClient, conversation: ConversationDto | null, conversationId: string): void {
  if (conversation) {
    updateFirstPage(queryClient, conversationId, (page) => ({ ...page, conversation, ...(conversation.status === 'resolved' && { humanRequestedAt: null }) }));
    putInLists(queryClient, conversation);
  } else {
    void queryClient.invalidateQueries({ queryKey: conversationKeys.lists });
  }
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
        if (id === conversationId) addThreadMessages(queryClient, id, [message]);
      };
      const onStatus = (change: ConversationStatusPayload) => {
        if (change.conversationId !== conversationId) return;
        patchConversation(queryClient, conversationId, { status: change.to, resolvedAt: change.resolvedAt, snoozeUntil: change.snoozeUntil, updatedAt: change.at });
        // A resolved thread answered the request for a human (the server reads it so too).
        if (change.to === 'resolved') updateFirstPage(queryClient, conversationId, (page) => ({ ...page, humanRequestedAt: null }));
        void queryClient.invalidateQueries({ queryKey: conversationKeys.queue });
      };
      const onDelivery = (change: MessageDeliveryPayload) => {
        if (change.conversationId === conversationId) setDelivery(queryClient, conversationId, change.messageId, change.delivery);
      };
      const join = () =>
        socket.emit('join_conversation', conversationId, (ack) => {
          if (ack.ok) void queryClient.invalidateQueries({ queryKey: conversationKeys.thread(conversationId) });
        });
      const stop = listen(
        socket,
        { agent_message_sent: onMessage, user_message_received: onMessage, workspace_message_added: onMessage, conversation_status_changed: onStatus, message_delivery_changed: onDelivery },
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
