import { Button, Group, NavLink, Paper, Stack, Text } from '@mantine/core';
import type { ConversationDto } from '@contracts';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { conversationKeys, conversationsApi, distinctById } from '../../../conversations/conversations.api';
import { StatusBadge } from '../../../conversations/StatusBadge';
import { conversationTitle } from '../../../conversations/thread';
import { formatDateTime } from '../../../ops/format';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import { useRefetchOn } from '../../../realtime/socket';
import { CLIENT_STATUS_LABELS } from './client-status';

const PAGE_SIZE = 30;
/** Threads other than the open one push nothing to a client: the list also looks again now and then. */
const REFRESH_MS = 60_000;

const byNewestActivity = (a: ConversationDto, b: ConversationDto) => Date.parse(b.lastMessageAt) - Date.parse(a.lastMessageAt);

/** The client's threads with their status; the open one is highlighted. */
export function ConversationList({ selectedId, onSelect, onNew }: { selectedId: string | null; onSelect: (id: string) => void; onNew: () => void }) {
  const list = useInfiniteQuery({
    queryKey: conversationKeys.list('all'),
    queryFn: ({ pageParam, signal }) => conversationsApi.list({ limit: PAGE_SIZE, cursor: pageParam }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    refetchInterval: REFRESH_MS,
  });
  // Missed pushes are not replayed: a reconnect reloads the list.
  useRefetchOn([], [conversationKeys.lists]);
  const items = useMemo(() => distinctById(list.data?.pages ?? []).sort(byNewestActivity), [list.data]);

  return (
    <Paper withBorder p="sm" data-testid="conversation-list">
      <Stack gap="xs">
        <Group justify="space-between">
          <Text fw={600}>Conversations</Text>
          <Button size="xs" onClick={onNew} data-testid="new-conversation">
            New conversation
          </Button>
        </Group>
        {list.isPending && <SectionLoader label="Loading your conversations" />}
        <QueryAlert title="Could not load your conversations" error={list.error} retry={() => void list.refetch()} />
        {list.data && items.length === 0 && (
          <Text size="sm" c="dimmed" data-testid="conversations-empty">
            No conversations yet.
          </Text>
        )}
        {items.map((item) => (
          <NavLink
            key={item.id}
            component="button"
            type="button"
            active={item.id === selectedId}
            onClick={() => onSelect(item.id)}
            label={conversationTitle(item)}
            description={`${item.specialist.name} · ${formatDateTime(item.lastMessageAt)}`}
            rightSection={<StatusBadge status={item.status} label={CLIENT_STATUS_LABELS} />}
            data-testid="conversation-item"
            data-id={item.id}
            data-status={item.status}
          />
        ))}
        {list.hasNextPage && (
          <Button variant="default" size="xs" onClick={() => void list.fetchNextPage()} loading={list.isFetchingNextPage}>
            Load more
          </Button>
        )}
      </Stack>
    </Paper>
  );
}
