import { ORG_STATUSES, type OrgStatus } from '@contracts';
import { Button, Group, Tabs, Text } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { Link } from 'react-router';
import { useCurrentUser } from '../../../auth/current-user';
import { Page } from '../../../layout/Page';
import { amApi, amKeys, type OrgListFilter } from '../../../ops/am.api';
import { canSetUpClients } from '../../../ops/permissions';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import { useUrlParams, useUrlSearch } from '../../../ops/url-state';
import { ClientsFilters } from './ClientsFilters';
import { ClientsTable } from './ClientsTable';

const PAGE_SIZE = 50;
type Param = 'tab' | 'status' | 'q';
type ClientsTab = 'all' | 'mine';

/** `/ops/clients`: the client orgs, newest first; `?tab=mine`, `?status=` and `?q=` keep the view in the address. */
export function ClientsPage() {
  const user = useCurrentUser();
  const allowed = canSetUpClients(user.platformRole);
  const [param, setParams] = useUrlParams<Param>();
  const tab: ClientsTab = param('tab') === 'mine' ? 'mine' : 'all';
  const rawStatus = param('status');
  const status = rawStatus && (ORG_STATUSES as readonly string[]).includes(rawStatus) ? (rawStatus as OrgStatus) : null;
  const q = param('q') ?? '';
  const onSearchSettled = useCallback((value: string) => setParams({ q: value }), [setParams]);
  const [search, setSearch] = useUrlSearch(q, onSearchSettled);
  const filter: OrgListFilter = { status: status ?? undefined, q: q || undefined, assignedAmId: tab === 'mine' ? user.id : undefined };

  const orgs = useInfiniteQuery({
    queryKey: amKeys.orgList(filter),
    queryFn: ({ pageParam, signal }) => amApi.listOrgs({ ...filter, limit: PAGE_SIZE, cursor: pageParam }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    enabled: allowed,
  });
  const items = orgs.data?.pages.flatMap((page) => page.items) ?? [];
  const filtered = status !== null || q !== '';

  if (!allowed) {
    return (
      <Page title="Clients">
        <Text c="dimmed">Client organizations are set up and managed by account managers and SuperAdmins.</Text>
      </Page>
    );
  }

  return (
    <Page title="Clients">
      <Group justify="space-between" wrap="wrap">
        <Text c="dimmed">The client organizations, newest first.</Text>
        <Button component={Link} to="/ops/clients/new">
          New client
        </Button>
      </Group>
      <Tabs value={tab} onChange={(value) => setParams({ tab: value === 'mine' ? 'mine' : null })}>
        <Tabs.List aria-label="Which clients">
          <Tabs.Tab value="all">All clients</Tabs.Tab>
          <Tabs.Tab value="mine">My clients</Tabs.Tab>
        </Tabs.List>
      </Tabs>
      <ClientsFilters
        status={status}
        onStatusChange={(value) => setParams({ status: value })}
        search={search}
        onSearchChange={setSearch}
        onClear={
          filtered
            ? () => {
                setSearch('');
                setParams({ status: null, q: null });
              }
            : null
        }
      />
      {orgs.isPending && <SectionLoader label="Loading the clients" />}
      <QueryAlert title="Could not load the clients" error={orgs.error} retry={() => void orgs.refetch()} />
      {orgs.data && items.length === 0 && (
        <Text c="dimmed" data-testid="clients-empty">
          {filtered ? 'No client matches these filters.' : tab === 'mine' ? 'No client is assigned to you yet.' : 'No client yet.'}
        </Text>
      )}
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
