import { Anchor, Badge, Button, Card, Group, SegmentedControl, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { ADMIN_MESSAGES, type ImpersonationSession } from '@contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { adminApi, adminKeys } from '../../../../admin/admin.api';
import { EntityPicker } from '../../../../admin/EntityPicker';
import { LoadMore, useCursorList } from '../../../../admin/paging';
import { SuperadminOnly } from '../../../../admin/SuperadminOnly';
import { roleLabel } from '../../../../auth/roles';
import { ConfirmDialog } from '../../../../layout/ConfirmDialog';
import { Page } from '../../../../layout/Page';
import { toast } from '../../../../layout/toast';
import { formatDateTime } from '../../../../ops/format';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';
import { ImpersonateAction } from '../users/ImpersonateAction';

type Show = 'all' | 'active' | 'ended';
const SHOWS: Show[] = ['all', 'active', 'ended'];

/** "5 minutes ago", "in 40 minutes": how long ago (or until when), as people say it. */
export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of units) if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  return format.format(seconds, 'second');
}

/** `/ops/impersonation`: who acted as whom, why and since when (spec 5.8); open sessions can be ended, a new one started. */
export function ImpersonationPage() {
  return (
    <SuperadminOnly title="Impersonation">
      <Sessions />
    </SuperadminOnly>
  );
}

function Person({ who }: { who: ImpersonationSession['target'] }) {
  return (
    <Stack gap={0}>
      <Anchor component={Link} to={`/ops/users/${who.id}`}>
        {who.name || who.email}
      </Anchor>
      {who.name && (
        <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          {who.email}
        </Text>
      )}
    </Stack>
  );
}

/** Pick a user and act as them: the reason and the confirmation are the user page's own dialog. */
function StartSession() {
  const [userId, setUserId] = useState<string | null>(null);
  const user = useQuery({ queryKey: adminKeys.user(userId ?? ''), queryFn: ({ signal }) => adminApi.user(userId!, signal), enabled: !!userId });
  return (
    <Card withBorder>
      <Stack gap="sm">
        <Title order={2} size="h4">
          Act as a user
        </Title>
        <Group align="flex-end" gap="sm">
          <EntityPicker kind="user" label="User" placeholder="Search by name or email" value={userId} onChange={setUserId} />
          {user.data && user.data.platformRole !== 'superadmin' && <ImpersonateAction user={user.data} />}
        </Group>
        {user.data && (
          <Text size="sm" c="dimmed">
            {user.data.platformRole === 'superadmin'
              ? ADMIN_MESSAGES.impersonateSuperadmin
              : `${user.data.email} · ${roleLabel(user.data.platformRole)}. You give a reason and confirm before anything starts.`}
          </Text>
        )}
      </Stack>
    </Card>
  );
}

function Sessions() {
  const [params, setParams] = useSearchParams();
  const show: Show = SHOWS.includes(params.get('show') as Show) ? (params.get('show') as Show) : 'all';
  const active = show === 'all' ? undefined : show === 'active';
  const [ending, setEnding] = useState<ImpersonationSession | null>(null);
  const queryClient = useQueryClient();
  const { query: sessions, items: rows } = useCursorList(adminKeys.impersonations(active), (cursor, signal) => adminApi.impersonations(active, cursor, signal));
  const stop = useMutation({
    mutationFn: (id: string) => adminApi.stopImpersonation(id),
    onSuccess: async (_, id) => {
      await queryClient.invalidateQueries({ queryKey: ['admin', 'impersonations'] });
      const ended = rows.find((r) => r.id === id);
      toast.success(ended ? `${ended.impersonator.name || ended.impersonator.email} no longer acts as ${ended.target.name || ended.target.email}.` : 'The session is ended.', 'Impersonation ended');
      setEnding(null);
    },
  });

  return (
    <Page title="Impersonation">
      <StartSession />
      <SegmentedControl
        value={show}
        onChange={(v) => setParams(v === 'all' ? {} : { show: v }, { replace: true })}
        data={[
          { value: 'all', label: 'All' },
          { value: 'active', label: 'Active' },
          { value: 'ended', label: 'Ended' },
        ]}
        w="fit-content"
        aria-label="Which sessions"
      />
      {sessions.isPending && <SectionLoader label="Loading the sessions" />}
      <QueryAlert title="Could not load the sessions" error={sessions.error} retry={() => void sessions.refetch()} />
      {sessions.data && rows.length === 0 && <Text c="dimmed">No impersonation session.</Text>}
      {rows.length > 0 && (
        <Card withBorder p={0}>
          <Table.ScrollContainer minWidth={760}>
            <Table data-testid="impersonation-table" verticalSpacing="sm">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Who</Table.Th>
                  <Table.Th>Acting as</Table.Th>
                  <Table.Th>Since</Table.Th>
                  <Table.Th>Reason</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((s) => (
                  <Table.Tr key={s.id} data-testid="impersonation-row">
                    <Table.Td>
                      <Person who={s.impersonator} />
                    </Table.Td>
                    <Table.Td>
                      <Person who={s.target} />
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{relativeTime(s.startedAt)}</Text>
                      <Text size="xs" c="dimmed">
                        {formatDateTime(s.startedAt)}
                      </Text>
                    </Table.Td>
                    <Table.Td maw={320} style={{ overflowWrap: 'anywhere' }}>
                      {s.reason}
                    </Table.Td>
                    <Table.Td>
                      {s.active ? (
                        <Badge color="orange" style={{ textTransform: 'none' }}>
                          Active, ends {relativeTime(s.expiresAt)}
                        </Badge>
                      ) : (
                        <Badge color="gray" variant="light" style={{ textTransform: 'none' }} title={formatDateTime(s.endedAt ?? s.expiresAt)}>
                          {s.endedAt ? `Ended ${relativeTime(s.endedAt)}` : `Expired ${relativeTime(s.expiresAt)}`}
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td>
                      {s.active && (
                        <Button
                          size="xs"
                          variant="default"
                          onClick={() => setEnding(s)}
                          aria-label={`End the session of ${s.impersonator.name || s.impersonator.email} as ${s.target.name || s.target.email}`}
                        >
                          End
                        </Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      <LoadMore query={sessions} />
      {ending && (
        <ConfirmDialog
          opened
          title="End this impersonation?"
          confirmLabel="End the session"
          loading={stop.isPending}
          error={stop.error}
          onConfirm={() => stop.mutate(ending.id)}
          onCancel={() => setEnding(null)}
        >
          <Text size="sm">
            {ending.impersonator.name || ending.impersonator.email} stops acting as {ending.target.name || ending.target.email} at once; their impersonation session is signed out.
          </Text>
        </ConfirmDialog>
      )}
    </Page>
  );
}
