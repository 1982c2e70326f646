import { Anchor, Badge, Button, SegmentedControl, Table, Text } from '@mantine/core';
import type { ImpersonationSession } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { adminApi, adminKeys } from '../../../../admin/admin.api';
import { LoadMore, useCursorList } from '../../../../admin/paging';
import { SuperadminOnly } from '../../../../admin/SuperadminOnly';
import { Page } from '../../../../layout/Page';
import { formatDateTime } from '../../../../ops/format';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';

type Show = 'all' | 'active' | 'ended';

/** `/ops/impersonation`: impersonation sessions (spec 5.8), who as whom and why; open ones can be ended. */
export function ImpersonationPage() {
  return (
    <SuperadminOnly title="Impersonation">
      <Sessions />
    </SuperadminOnly>
  );
}

function Person({ who }: { who: ImpersonationSession['target'] }) {
  return (
    <Anchor component={Link} to={`/ops/users/${who.id}`}>
      {who.name || who.email}
    </Anchor>
  );
}

function Sessions() {
  const [show, setShow] = useState<Show>('all');
  const active = show === 'all' ? undefined : show === 'active';
  const queryClient = useQueryClient();
  const { query: sessions, items: rows } = useCursorList(adminKeys.impersonations(active), (cursor, signal) => adminApi.impersonations(active, cursor, signal));
  const stop = useMutation({
    mutationFn: (id: string) => adminApi.stopImpersonation(id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'impersonations'] }),
  });

  return (
    <Page title="Impersonation">
      <SegmentedControl
        value={show}
        onChange={(v) => setShow(v as Show)}
        data={[
          { value: 'all', label: 'All' },
          { value: 'active', label: 'Active' },
          { value: 'ended', label: 'Ended' },
        ]}
        w="fit-content"
      />
      {sessions.isPending && <SectionLoader label="Loading the sessions" />}
      <QueryAlert title="Could not load the sessions" error={sessions.error ?? stop.error} retry={() => void sessions.refetch()} />
      {sessions.data && rows.length === 0 && <Text c="dimmed">No impersonation session.</Text>}
      {rows.length > 0 && (
        <Table data-testid="impersonation-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Started</Table.Th>
              <Table.Th>SuperAdmin</Table.Th>
              <Table.Th>Acting as</Table.Th>
              <Table.Th>Reason</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((s) => (
              <Table.Tr key={s.id} data-testid="impersonation-row">
                <Table.Td>{formatDateTime(s.startedAt)}</Table.Td>
                <Table.Td>
                  <Person who={s.impersonator} />
                </Table.Td>
                <Table.Td>
                  <Person who={s.target} />
                </Table.Td>
                <Table.Td maw={360}>{s.reason}</Table.Td>
                <Table.Td>
                  {s.active ? (
                    <Badge color="orange">Active until {formatDateTime(s.expiresAt)}</Badge>
                  ) : (
                    <Badge color="gray" variant="light">
                      {s.endedAt ? `Ended ${formatDateTime(s.endedAt)}` : `Expired ${formatDateTime(s.expiresAt)}`}
                    </Badge>
                  )}
                </Table.Td>
                <Table.Td>
                  {s.active && (
                    <Button size="xs" variant="default" onClick={() => stop.mutate(s.id)} loading={stop.isPending && stop.variables === s.id}>
                      End
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <LoadMore query={sessions} />
    </Page>
  );
}
