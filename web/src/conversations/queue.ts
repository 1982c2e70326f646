import type { QueueTab } from '@contracts';
import type { ServerToClientEvents } from '@contracts/realtime';
import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useRefetchOn } from '../realtime/socket';
import { conversationKeys, conversationsApi, distinctById } from './conversations.api';

const PAGE_SIZE = 50;

/** The tabs of spec 4.4, in order. */
export const QUEUE_TAB_LABELS: Record<QueueTab, string> = {
  all: 'All',
  pending: 'Pending',
  awaiting_client: 'Awaiting Reply',
  resolved: 'Resolved',
  snoozed: 'Snoozed',
};

/** The events after which the attention list may read differently (spec 6.1). */
const QUEUE_EVENTS: readonly (keyof ServerToClientEvents)[] = ['expert_queue_item_added', 'queue_item_status_updated', 'queue_item_resolved', 'queue_item_updated', 'conversation_status_changed'];

export const queueQuery = (tab: QueueTab) =>
  infiniteQueryOptions({
    queryKey: conversationKeys.queueTab(tab),
    queryFn: ({ pageParam, signal }) => conversationsApi.queue({ status: tab, limit: PAGE_SIZE, cursor: pageParam }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });

/** One tab of the attention list, each item once. */
export function useQueue(tab: QueueTab) {
  const query = useInfiniteQuery(queueQuery(tab));
  const items = useMemo(() => distinctById(query.data?.pages ?? []), [query.data]);
  return { query, items };
}

/** Keeps the attention list current: it is reloaded on each queue event and on every (re)connect. */
export function useQueueLive(): void {
  useRefetchOn(QUEUE_EVENTS, [conversationKeys.queue]);
}
