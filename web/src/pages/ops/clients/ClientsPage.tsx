import { Button, Group, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { useCurrentUser } from '../../../auth/current-user';
import { Page } from '../../../layout/Page';
import { amApi, amKeys } from '../../../ops/am.api';
import { canSetUpClients } from '../../../ops/permissions';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import type { OrgStatus } from '../../../ops/types';
import { ClientsFilters } from './ClientsFilters';
import { ClientsTable } from './ClientsTable';

const PAGE_SIZE = 50;

/** `/ops/clients`: the client orgs, newest first, by status and a search. */
export function ClientsPage() {
  const user = useCurrentUser();
  const allowed = canSetUpClients(user.platformRole);
  const [status, setStatus] = useState<OrgStatus | null>(null);
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 300);
  const filter = { status: status ?? undefined, q: q || undefined };

  const orgs = useInfiniteQuery({
    queryKey: amKeys.orgList(filter),
    queryFn: ({ pageParam, signal }) => amApi.listOrgs({ ...filter, limit: PAGE_SIZE, cursor: pageParam }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    enabled: allowed,
  });
  const items = orgs.data?.pages.flatMap((page) => page.items) ?? [];

  if (!allowed) {
    return (
      <Page title="Clients">
        <Text c="dimmed">Client organizations are set up and managed by account managers and SuperAdmins.</Text>
      </Page>
    );
  }

  return (
    <Page title="Clients">
      <Group justify="space-between">
        <Text c="dimmed">The client organizations, newest first.</Text>
        <Button component={Link} to="/ops/clients/new">
          New client
        </Button>
      </Group>
      <ClientsFilters status={status} onStatusChange={setStatus} search={search} onSearchChange={setSearch} />
      {orgs.isPending && <SectionLoader label="Loading the clients" />}
      <QueryAlert title="Could not load the clients" error={orgs.error} retry={() => void orgs.refetch()} />
      {orgs.data && items.length === 0 && <Text c="dimmed">No client matches.</Text>}
      {items.length > 0 && <ClientsTable orgs={items} currentUserId={user.id} />}
      {orgs.hasNextPage && (
        <Group justify="center">
          <Button variant="default" onClick={() => void orgs.fetchNextPage()} loading={orgs.isFetchingNextPage}>
            Load more
          </Button>
        </Group>
      )}
    </Page>
  );
}
