import { CONVERSATION_CHANNELS, type ConversationChannel, type PageOf, QUEUE_TABS, type QueueFiltersDto, type QueueItemDto, type QueueTab } from '@contracts';
import { infiniteQueryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { apiFetch } from '../../api/client';
import { conversationKeys, distinctById } from '../../conversations/conversations.api';
import { channelLabel } from '../../channels/channel-info';

const PAGE_SIZE = 50;

/** What the attention list shows: a tab, the filters and the search, all kept in the page address. */
export interface QueueView {
  status: QueueTab;
  orgId?: string;
  specialistId?: string;
  channel?: ConversationChannel;
  /** `me`, `unassigned` or an Expert's id. */
  assignee?: string;
  q?: string;
}

/** The address parameter of each part of the view (`status` is the tab). */
const PARAMS = { status: 'status', orgId: 'org', specialistId: 'specialist', channel: 'channel', assignee: 'assignee', q: 'q' } as const satisfies Record<keyof QueueView, string>;

const oneOf = <T extends string>(values: readonly T[], value: string | null): T | undefined => ((values as readonly (string | null)[]).includes(value) ? (value as T) : undefined);

export function viewOf(params: URLSearchParams): QueueView {
  const text = (key: keyof QueueView) => params.get(PARAMS[key])?.trim() || undefined;
  return {
    status: oneOf(QUEUE_TABS, params.get(PARAMS.status)) ?? 'all',
    orgId: text('orgId'),
    specialistId: text('specialistId'),
    channel: oneOf(CONVERSATION_CHANNELS, params.get(PARAMS.channel)),
    assignee: text('assignee'),
    q: text('q'),
  };
}

/** The view from the address, and a change of it: a new history entry, so that Back undoes it. */
export function useQueueView(): [QueueView, (change: Partial<QueueView>) => void] {
  const [params, setParams] = useSearchParams();
  const view = useMemo(() => viewOf(params), [params]);
  const update = useCallback(
    (change: Partial<QueueView>) =>
      setParams((current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(change) as [keyof QueueView, string | undefined][]) {
          if (value && !(key === 'status' && value === 'all')) next.set(PARAMS[key], value);
          else next.delete(PARAMS[key]);
        }
        return next;
      }),
    [setParams],
  );
  return [view, update];
}

export const queueApi = {
  list: (view: QueueView & { conversationId?: string; cursor?: string; limit?: number }, signal?: AbortSignal) => apiFetch<PageOf<QueueItemDto>>('/expert-queue', { query: { ...view }, signal }),
  filters: (signal?: AbortSignal) => apiFetch<QueueFiltersDto>('/expert-queue/filters', { signal }),
};

// Under the attention list's key: every change of a thread (and each queue event) reloads them.
// The names to filter by are not: they change rarely, and a thread change must not reload them.
const keys = {
  list: (view: QueueView) => [...conversationKeys.queue, 'view', view] as const,
  filters: ['expert-queue-filters'] as const,
  item: (conversationId: string) => [...conversationKeys.queue, 'item', conversationId] as const,
};

const listQuery = (view: QueueView) =>
  infiniteQueryOptions({
    queryKey: keys.list(view),
    queryFn: ({ pageParam, signal }) => queueApi.list({ ...view, limit: PAGE_SIZE, cursor: pageParam }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });

/** The items of one view, each once. */
export function useQueueList(view: QueueView) {
  const query = useInfiniteQuery(listQuery(view));
  const items = useMemo(() => distinctById(query.data?.pages ?? []), [query.data]);
  return { query, items };
}

const NO_FILTERS: QueueFiltersDto = { orgs: [], specialists: [], experts: [] };

/** The orgs, Specialists and Experts the list can be filtered by, by name. */
export function useQueueFilters() {
  const query = useQuery({ queryKey: keys.filters, queryFn: ({ signal }) => queueApi.filters(signal), staleTime: 60_000 });
  return query.data ?? NO_FILTERS;
}

/** The attention-list entry of one thread, when it has one. */
export function useQueueItem(conversationId: string): QueueItemDto | undefined {
  const query = useQuery({
    queryKey: keys.item(conversationId),
    queryFn: async ({ signal }) => (await queueApi.list({ status: 'all', conversationId, limit: 1 }, signal)).items[0] ?? null,
    enabled: conversationId !== '',
  });
  return query.data ?? undefined;
}

/** An Expert's name for the lists: "you" for the caller. */
export function expertName(filters: QueueFiltersDto, expertId: string | null, currentUserId: string): string | null {
  if (!expertId) return null;
  if (expertId === currentUserId) return 'you';
  return filters.experts.find((e) => e.id === expertId)?.name || 'another Expert';
}

/** A channel as the lists name it. */
export function channelName(channel: ConversationChannel): string {
  return channel === 'web' ? 'Web chat' : channelLabel(channel);
}
