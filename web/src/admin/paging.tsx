import type { PageOf } from '@contracts';
import { Button, Group } from '@mantine/core';
import { useInfiniteQuery, type QueryKey } from '@tanstack/react-query';

/** A `{ items, nextCursor }` list read page by page, with its items flattened. */
export function useCursorList<T>(queryKey: QueryKey, fetchPage: (cursor: string | undefined, signal: AbortSignal) => Promise<PageOf<T>>, options: { enabled?: boolean } = {}) {
  const query = useInfiniteQuery({
    queryKey,
    enabled: options.enabled,
    queryFn: ({ pageParam, signal }) => fetchPage(pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });
  return { query, items: query.data?.pages.flatMap((page) => page.items) ?? [] };
}

/** "Load more" under a cursor list, while there is more. */
export function LoadMore({ query }: { query: ReturnType<typeof useCursorList>['query'] }) {
  if (!query.hasNextPage) return null;
  return (
    <Group justify="center">
      <Button variant="default" onClick={() => void query.fetchNextPage()} loading={query.isFetchingNextPage}>
        Load more
      </Button>
    </Group>
  );
}
