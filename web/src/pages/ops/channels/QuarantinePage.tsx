import { Button, Group, Text } from '@mantine/core';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { useCurrentUser } from '../../../auth/current-user';
import { channelKeys, channelsApi } from '../../../channels/channels.api';
import { Page } from '../../../layout/Page';
import { amApi } from '../../../ops/am.api';
import { canSetUpClients } from '../../../ops/permissions';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import { OrgFilter } from './OrgFilter';
import { QuarantineTable } from './QuarantineTable';

const PAGE_SIZE = 50;
const ORG_PARAM = 'orgId';

/** `/ops/channels/quarantine`: inbound events kept without a turn (unresolved org, quota, suspended mailbox...). */
export function QuarantinePage() {
  const user = useCurrentUser();
  const [searchParams, setSearchParams] = useSearchParams();
  const orgId = searchParams.get(ORG_PARAM) ?? undefined;
  // Account managers and SuperAdmins may list the orgs: they pick one by name.
  const canListOrgs = canSetUpClients(user.platformRole);

  const orgs = useQuery({
    queryKey: channelKeys.orgOptions,
    queryFn: ({ signal }) => amApi.listOrgs({ limit: 200 }, signal),
    enabled: canListOrgs,
    staleTime: 60_000,
  });
  const orgOptions = useMemo(() => {
    const options = orgs.data?.items.map((org) => ({ value: org.id, label: `${org.legalName} (${org.slug})` })) ?? [];
    // An org of the link that is not among the listed ones stays selectable by its id.
    return orgId && !options.some((o) => o.value === orgId) ? [...options, { value: orgId, label: orgId }] : options;
  }, [orgs.data, orgId]);
  const orgNames = useMemo(() => new Map(orgs.data?.items.map((org) => [org.id, org.legalName]) ?? []), [orgs.data]);

  const events = useInfiniteQuery({
    queryKey: channelKeys.quarantine(orgId),
    queryFn: ({ pageParam, signal }) => channelsApi.quarantine({ orgId, limit: PAGE_SIZE, cursor: pageParam }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });
  const items = events.data?.pages.flatMap((page) => page.items) ?? [];

  const setOrg = (next: string | null) => setSearchParams(next ? { [ORG_PARAM]: next } : {}, { replace: true });

  return (
    <Page title="Quarantined ingress">
      <Text c="dimmed">
        Inbound channel messages kept without a turn: no organization bound to them, over the message quota, to a suspended mailbox, or for an inactive organization. Newest first.
      </Text>
      <Group align="flex-end" justify="space-between" wrap="wrap">
        <OrgFilter options={canListOrgs ? orgOptions : undefined} value={orgId ?? null} onChange={setOrg} />
        <Button variant="default" onClick={() => void events.refetch()} loading={events.isRefetching && !events.isFetchingNextPage}>
          Refresh
        </Button>
      </Group>
      <QueryAlert title="Could not load the organizations" error={orgs.error} />
      {events.isPending && <SectionLoader label="Loading the quarantined events" />}
      <QueryAlert title="Could not load the quarantined events" error={events.error} retry={() => void events.refetch()} />
      {events.data && items.length === 0 && (
        <Text c="dimmed" data-testid="quarantine-empty">
          {orgId ? 'Nothing is quarantined for this organization.' : 'Nothing is quarantined.'}
        </Text>
      )}
      {items.length > 0 && <QuarantineTable events={items} orgNames={orgNames} linkOrgs={canListOrgs} />}
      {events.hasNextPage && (
        <Group justify="center">
          <Button variant="default" onClick={() => void events.fetchNextPage()} loading={events.isFetchingNextPage}>
            Load more
          </Button>
        </Group>
      )}
    </Page>
  );
}
