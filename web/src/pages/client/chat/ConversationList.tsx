import { Button, CloseButton, Group, Highlight, NativeSelect, NavLink, Paper, ScrollArea, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { CONVERSATION_STATUSES, type ConversationDto } from '@contracts';
import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { conversationKeys, conversationsApi, distinctById, type ConversationFilter } from '../../../conversations/conversations.api';
import { PersonAvatar, RelativeTime } from '../../../conversations/MessageBubble';
import { conversationStatusLabel } from '../../../conversations/status-labels';
import { StatusBadge } from '../../../conversations/StatusBadge';
import { conversationTitle } from '../../../conversations/thread';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import { useRefetchOn } from '../../../realtime/socket';
import { searchTerms, snippet } from './search-terms';

const PAGE_SIZE = 30;
/** Threads other than the open one push nothing to a client: the list also looks again now and then. */
const REFRESH_MS = 60_000;
const SEARCH_DELAY_MS = 300;

const FILTER_OPTIONS = [{ value: 'all', label: 'All conversations' }, ...CONVERSATION_STATUSES.map((status) => ({ value: status, label: conversationStatusLabel(status) }))];

/** The client's threads of one status (or all), newest activity first, a page at a time. */
export const conversationListQuery = (filter: ConversationFilter) =>
  infiniteQueryOptions({
    queryKey: conversationKeys.list(filter),
    queryFn: ({ pageParam, signal }) => conversationsApi.list({ status: filter === 'all' ? undefined : filter, limit: PAGE_SIZE, cursor: pageParam }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });

const byNewestActivity = (a: ConversationDto, b: ConversationDto) => Date.parse(b.lastMessageAt) - Date.parse(a.lastMessageAt);

interface ListProps {
  selectedId: string | null;
  onSelect: (id: string) => void;
  onNew: () => void;
  filter: ConversationFilter;
  onFilter: (filter: ConversationFilter) => void;
  /** The search as in the address (empty: no search). */
  query: string;
  onQuery: (query: string) => void;
}

/** One thread in the list: the Specialist's picture, the title, the Specialist and the last activity, the status. */
function ConversationItem({ item, selected, onSelect, title, detail }: { item: ConversationDto; selected: boolean; onSelect: (id: string) => void; title?: ReactNode; detail?: ReactNode }) {
  return (
    <NavLink
      component="button"
      type="button"
      active={selected}
      aria-current={selected ? 'true' : undefined}
      onClick={() => onSelect(item.id)}
      leftSection={<PersonAvatar name={item.specialist.name} src={item.specialist.avatarUrl} size={32} />}
      label={title ?? conversationTitle(item)}
      description={
        <Stack gap={2} component="span">
          <Group gap={6} wrap="nowrap" component="span">
            <Text component="span" size="xs" c="dimmed" truncate data-testid="conversation-item-specialist">
              {item.specialist.name}
            </Text>
            <RelativeTime iso={item.lastMessageAt} />
          </Group>
          {detail}
        </Stack>
      }
      rightSection={<StatusBadge status={item.status} />}
      data-testid="conversation-item"
      data-id={item.id}
      data-status={item.status}
    />
  );
}

/** The threads found for a search, each with its title and a matching message, the matches marked. */
function SearchResults({ query, selectedId, onSelect }: { query: string; selectedId: string | null; onSelect: (id: string) => void }) {
  const search = useInfiniteQuery({
    queryKey: conversationKeys.search(query),
    queryFn: ({ pageParam, signal }) => conversationsApi.search({ q: query, limit: PAGE_SIZE, cursor: pageParam }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });
  const terms = useMemo(() => searchTerms(query), [query]);
  const hits = useMemo(() => search.data?.pages.flatMap((page) => page.items) ?? [], [search.data]);

  return (
    <Stack gap={4} data-testid="search-results">
      {search.isPending && <SectionLoader label="Searching" />}
      <QueryAlert title="Could not search your conversations" error={search.error} retry={() => void search.refetch()} />
      {search.data && hits.length === 0 && (
        <Text size="sm" c="dimmed" data-testid="search-empty">
          No conversation mentions “{query}”.
        </Text>
      )}
      {hits.map((hit) => {
        const match = hit.matches[0];
        return (
          <ConversationItem
            key={hit.conversation.id}
            item={hit.conversation}
            selected={hit.conversation.id === selectedId}
            onSelect={onSelect}
            title={
              <Highlight component="span" size="sm" highlight={terms}>
                {conversationTitle(hit.conversation)}
              </Highlight>
            }
            detail={
              match && (
                <Highlight component="span" size="xs" c="dimmed" highlight={terms} lineClamp={2} data-testid="search-match">
                  {snippet(match.content, terms)}
                </Highlight>
              )
            }
          />
        );
      })}
      {search.hasNextPage && (
        <Button variant="default" size="xs" onClick={() => void search.fetchNextPage()} loading={search.isFetchingNextPage}>
          More results
        </Button>
      )}
    </Stack>
  );
}

/** The client's threads (of one status, or all) or the threads a search found; the open one is highlighted. */
export function ConversationList({ selectedId, onSelect, onNew, filter, onFilter, query, onQuery }: ListProps) {
  const [typed, setTyped] = useState(query);
  const [debounced] = useDebouncedValue(typed.trim(), SEARCH_DELAY_MS);
  // The address changed (back, forward): the box follows.
  useEffect(() => setTyped(query), [query]);
  useEffect(() => {
    if (debounced !== query) onQuery(debounced);
    // Only a change of what was typed searches.
  }, [debounced]);

  const list = useInfiniteQuery({
    ...conversationListQuery(filter),
    refetchInterval: REFRESH_MS,
    enabled: query === '',
  });
  // Missed pushes are not replayed: a reconnect reloads the list.
  useRefetchOn([], [conversationKeys.lists]);
  const items = useMemo(() => distinctById(list.data?.pages ?? []).sort(byNewestActivity), [list.data]);

  return (
    <Paper withBorder p="sm" h="100%" style={{ display: 'flex', flexDirection: 'column', minHeight: 0 }} data-testid="conversation-list">
      <Stack gap="xs" mb="xs">
        <Group justify="space-between" wrap="nowrap">
          <Text fw={600} component="h2" size="md" m={0}>
            Conversations
          </Text>
          <Button size="xs" onClick={onNew} data-testid="new-conversation">
            New conversation
          </Button>
        </Group>
        <form
          role="search"
          onSubmit={(event) => {
            event.preventDefault();
            onQuery(typed.trim());
          }}
        >
          <TextInput
            type="search"
            aria-label="Search conversations"
            placeholder="Search conversations"
            value={typed}
            maxLength={200}
            onChange={(event) => setTyped(event.currentTarget.value)}
            rightSection={typed ? <CloseButton size="sm" aria-label="Clear the search" onClick={() => (setTyped(''), onQuery(''))} /> : null}
            data-testid="conversation-search"
          />
        </form>
        {query === '' && (
          <NativeSelect aria-label="Show" data={FILTER_OPTIONS} value={filter} onChange={(event) => onFilter(event.currentTarget.value as ConversationFilter)} data-testid="conversation-filter" />
        )}
      </Stack>
      <ScrollArea style={{ flex: 1, minHeight: 0 }} type="auto" offsetScrollbars>
        {query !== '' ? (
          <SearchResults query={query} selectedId={selectedId} onSelect={onSelect} />
        ) : (
          <Stack gap={4}>
            {list.isPending && <SectionLoader label="Loading your conversations" />}
            <QueryAlert title="Could not load your conversations" error={list.error} retry={() => void list.refetch()} />
            {list.data && items.length === 0 && (
              <Text size="sm" c="dimmed" data-testid="conversations-empty">
                {filter === 'all' ? 'No conversations yet.' : `No conversation is ${conversationStatusLabel(filter).toLowerCase()}.`}
              </Text>
            )}
            {items.map((item) => (
              <ConversationItem key={item.id} item={item} selected={item.id === selectedId} onSelect={onSelect} />
            ))}
            {list.hasNextPage && (
              <Button variant="default" size="xs" onClick={() => void list.fetchNextPage()} loading={list.isFetchingNextPage}>
                Load more
              </Button>
            )}
          </Stack>
        )}
      </ScrollArea>
    </Paper>
  );
}
