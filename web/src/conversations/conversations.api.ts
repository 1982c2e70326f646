import type {
  ClientSpecialist,
  ConversationDto,
  ConversationStatus,
  CreateConversationInput,
  MessageDto,
  PageOf,
  QueueItemDto,
  QueueTab,
  SearchHitSchema,
  SendMessageInput,
  SentMessageDto,
  SetStatusInput,
  ThreadDtoSchema,
} from '@contracts';
import type { z } from 'zod';
import { apiFetch } from '../api/client';

export type { ClientSpecialist };

export type ThreadDto = z.infer<typeof ThreadDtoSchema>;
export type CreatedConversation = ConversationDto & { messages: MessageDto[] };
export type SearchHit = z.infer<typeof SearchHitSchema>;
/** The list filter of the client chat: every thread, or those of one status. */
export type ConversationFilter = ConversationStatus | 'all';
/** The status moves anyone of the thread may make (spec 3.1); Dismiss is the client's. */
export type StatusAction = 'resolve' | 'reopen' | 'dismiss';

const conversation = (id: string) => `/conversations/${encodeURIComponent(id)}`;

/** Conversations and the attention list (spec 4.4; API-MAP.md "Conversations"). */
export const conversationsApi = {
  list: (query: { status?: ConversationStatus; limit?: number; cursor?: string }, signal?: AbortSignal) => apiFetch<PageOf<ConversationDto>>('/conversations', { query, signal }),
  /** Full-text search of the messages the caller may see (spec 4.4): each thread with a few of its matches. */
  search: (query: { q: string; limit?: number; cursor?: string }, signal?: AbortSignal) => apiFetch<PageOf<SearchHit>>('/conversations/search', { query, signal }),
  /** The caller's org's Specialists, oldest assignment first. */
  specialists: (signal?: AbortSignal) => apiFetch<PageOf<ClientSpecialist>>('/client/specialists', { signal }),
  /** The newest messages, or those older than the message `before`. */
  thread: (id: string, query: { limit?: number; before?: string }, signal?: AbortSignal) => apiFetch<ThreadDto>(conversation(id), { query, signal }),
  create: (body: CreateConversationInput) => apiFetch<CreatedConversation>('/conversations', { method: 'POST', body }),
  send: (id: string, body: SendMessageInput, idempotencyKey: string) =>
    apiFetch<SentMessageDto>(`${conversation(id)}/messages`, { method: 'POST', body, headers: { 'Idempotency-Key': idempotencyKey } }),
  correct: (id: string, messageId: string, body: { content: string; reason?: string }) =>
    apiFetch<MessageDto>(`${conversation(id)}/messages/${encodeURIComponent(messageId)}`, { method: 'PATCH', body }),
  escalate: (id: string, body: { reason?: string }) => apiFetch<ConversationDto>(`${conversation(id)}/escalate`, { method: 'POST', body }),
  act: (id: string, action: StatusAction) => apiFetch<ConversationDto>(`${conversation(id)}/${action}`, { method: 'PATCH' }),
  setStatus: (id: string, body: SetStatusInput) => apiFetch<ConversationDto>(`${conversation(id)}/status`, { method: 'PATCH', body }),
  assign: (id: string, expertId: string | null) => apiFetch<ConversationDto>(`${conversation(id)}/assign`, { method: 'PATCH', body: { expertId } }),
  queue: (query: { status: QueueTab; limit?: number; cursor?: string }, signal?: AbortSignal) => apiFetch<PageOf<QueueItemDto>>('/expert-queue', { query, signal }),
};

export const conversationKeys = {
  lists: ['conversations', 'list'] as const,
  list: (status: ConversationFilter) => ['conversations', 'list', status] as const,
  search: (q: string) => ['conversations', 'search', q] as const,
  specialists: ['client', 'specialists'] as const,
  thread: (id: string) => ['conversations', 'thread', id] as const,
  queue: ['expert-queue'] as const,
  queueTab: (tab: QueueTab) => ['expert-queue', tab] as const,
};

/** A key for `Idempotency-Key`: a repeated request (a retry after a lost answer) creates nothing. */
export function newIdempotencyKey(): string {
  // getRandomValues works outside secure contexts too, unlike randomUUID.
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The items of loaded pages, each once: an item that moved while paging shows up in two pages. */
export function distinctById<T extends { id: string }>(pages: readonly { items: readonly T[] }[]): T[] {
  const seen = new Map<string, T>();
  for (const page of pages) for (const item of page.items) if (!seen.has(item.id)) seen.set(item.id, item);
  return [...seen.values()];
}
