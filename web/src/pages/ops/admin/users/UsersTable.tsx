import { Anchor, Table } from '@mantine/core';
import type { AdminUser } from '@contracts';
import { Link } from 'react-router';
import { UserStatusBadge } from '../../../../admin/UserStatusBadge';
import { roleLabel } from '../../../../auth/roles';
import { formatDate, formatDateTime } from '../../../../ops/format';

export function UsersTable({ users }: { users: AdminUser[] }) {
  return (
    <Table.ScrollContainer minWidth={820}>
      <Table highlightOnHover data-testid="users-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Email</Table.Th>
            <Table.Th>Role</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Two-factor</Table.Th>
            <Table.Th>Last sign-in</Table.Th>
            <Table.Th>Created</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {users.map((user) => (
            <Table.Tr key={user.id} data-testid="user-row" data-email={user.email}>
              <Table.Td>
                <Anchor component={Link} to={`/ops/users/${user.id}`}>
                  {user.name || '(no name)'}
                </Anchor>
              </Table.Td>
              <Table.Td>{user.email}</Table.Td>
              <Table.Td>{roleLabel(user.platformRole)}</Table.Td>
              <Table.Td>
                <UserStatusBadge status={user.status} />
              </Table.Td>
              <Table.Td>{user.totpEnabled ? 'On' : 'Off'}</Table.Td>
              <Table.Td>{formatDateTime(user.lastLoginAt)}</Table.Td>
              <Table.Td>{formatDate(user.createdAt)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
