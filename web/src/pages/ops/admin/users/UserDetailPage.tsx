import { Anchor, Button, Card, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { isEditableStatus, type AdminUserDetail } from '@contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { adminApi, adminKeys } from '../../../../admin/admin.api';
import { LoadMore, useCursorList } from '../../../../admin/paging';
import { SuperadminOnly } from '../../../../admin/SuperadminOnly';
import { UserStatusBadge } from '../../../../admin/UserStatusBadge';
import { roleLabel } from '../../../../auth/roles';
import { Page } from '../../../../layout/Page';
import { formatDate, formatDateTime } from '../../../../ops/format';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';
import { AuditTable } from '../audit/AuditTable';
import { AccessActions } from './AccessActions';
import { EditUserModal } from './EditUserModal';
import { ImpersonateAction } from './ImpersonateAction';
import { ResetPasswordAction } from './ResetPasswordAction';

/** `/ops/users/[id]`: the user, their memberships, the actions of spec 4.7 rule 5, and what they did. */
export function UserDetailPage() {
  return (
    <SuperadminOnly title="User">
      <UserDetail />
    </SuperadminOnly>
  );
}

function UserDetail() {
  const { id = '' } = useParams();
  const user = useQuery({ queryKey: adminKeys.user(id), queryFn: ({ signal }) => adminApi.user(id, signal) });
  const [editing, setEditing] = useState(false);

  if (user.isPending) return <SectionLoader label="Loading the user" />;
  if (user.error) {
    return (
      <Page title="User">
        <QueryAlert title="Could not load the user" error={user.error} retry={() => void user.refetch()} />
      </Page>
    );
  }
  const u = user.data;
  return (
    <Page title={u.name || u.email}>
      <Anchor component={Link} to="/ops/users" size="sm">
        ← All users
      </Anchor>
      <Group justify="space-between" align="flex-start">
        <UserFacts user={u} />
        {!u.removedAt && (
          <Stack gap="sm">
            <Group align="flex-start" data-testid="user-actions">
              <Button onClick={() => setEditing(true)}>Edit</Button>
              <ResetPasswordAction user={u} />
              <ImpersonateAction user={u} />
            </Group>
            {isEditableStatus(u.status) && <AccessActions user={u} />}
          </Stack>
        )}
      </Group>
      {editing && <EditUserModal user={u} opened onClose={() => setEditing(false)} />}
      <Memberships user={u} />
      <Activity userId={u.id} />
    </Page>
  );
}

const ORG_ROLE_LABELS: Record<string, string> = { owner: 'Owner', admin: 'Admin', member: 'Member', billing: 'Billing' };

function UserFacts({ user }: { user: AdminUserDetail }) {
  const facts: Array<[string, React.ReactNode]> = [
    ['Email', <span data-testid="user-email">{user.email}</span>],
    ['Role', roleLabel(user.platformRole)],
    ['Status', <UserStatusBadge status={user.status} />],
    ['Two-factor sign-in', user.totpEnabled ? 'On' : 'Off'],
    ['Last sign-in', formatDateTime(user.lastLoginAt)],
    ['Sessions valid from', formatDateTime(user.passwordChangedAt)],
    ['Created', formatDate(user.createdAt)],
    ...(user.removedAt ? ([['Removed', formatDateTime(user.removedAt)]] as Array<[string, React.ReactNode]>) : []),
  ];
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs" verticalSpacing={4} data-testid="user-facts">
      {facts.map(([label, value]) => (
        <Group key={label} gap="xs" wrap="nowrap" align="flex-start">
          <Text size="sm" c="dimmed" w={130} style={{ flexShrink: 0 }}>
            {label}
          </Text>
          <Text size="sm" component="div" style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
            {value}
          </Text>
        </Group>
      ))}
    </SimpleGrid>
  );
}

function Memberships({ user }: { user: AdminUserDetail }) {
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">
        Organizations
      </Title>
      {user.orgMemberships.length === 0 ? (
        <Text c="dimmed" size="sm">
          Not a member of any organization.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={360}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Organization</Table.Th>
                <Table.Th>Role</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {user.orgMemberships.map((m) => (
                <Table.Tr key={m.orgId}>
                  <Table.Td>
                    <Anchor component={Link} to={`/ops/clients/${m.orgId}`}>
                      {m.orgName ?? 'Organization without a name'}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{ORG_ROLE_LABELS[m.orgRole] ?? m.orgRole}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}

/** Spec 6.3: the actions this user performed (actions against them are in the platform-wide log). */
function Activity({ userId }: { userId: string }) {
  const { query: activity, items: rows } = useCursorList(adminKeys.activity(userId), (cursor, signal) => adminApi.activity(userId, cursor, signal));
  return (
    <Stack gap="xs">
      <Group justify="space-between" gap="xs">
        <Title order={2} size="h4">
          Activity
        </Title>
        <Anchor component={Link} to={`/ops/audit?userId=${userId}`} size="sm">
          Everything about this user in the audit log
        </Anchor>
      </Group>
      <QueryAlert title="Could not load the activity" error={activity.error} />
      {activity.data && rows.length === 0 && (
        <Text c="dimmed" size="sm">
          No recorded action.
        </Text>
      )}
      {rows.length > 0 && <AuditTable rows={rows} />}
      <LoadMore query={activity} />
    </Stack>
  );
}
