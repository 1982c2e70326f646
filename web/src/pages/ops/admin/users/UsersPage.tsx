import { Group, Select, Text, TextInput } from '@mantine/core';
import { PLATFORM_ROLES, type PlatformRole } from '@contracts';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { adminApi, adminKeys } from '../../../../admin/admin.api';
import { LoadMore, useCursorList } from '../../../../admin/paging';
import { SuperadminOnly } from '../../../../admin/SuperadminOnly';
import { roleLabel } from '../../../../auth/roles';
import { Page } from '../../../../layout/Page';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';
import { UsersTable } from './UsersTable';

const ROLE_OPTIONS = PLATFORM_ROLES.map((role) => ({ value: role, label: roleLabel(role) }));

/** `/ops/users`: every user, newest first, by role and a name/email search (spec 4.7 rule 5). */
export function UsersPage() {
  return (
    <SuperadminOnly title="Users">
      <UsersList />
    </SuperadminOnly>
  );
}

function UsersList() {
  const [role, setRole] = useState<PlatformRole | null>(null);
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 300);
  const filter = { role: role ?? undefined, q: q || undefined };
  const { query: users, items } = useCursorList(adminKeys.userList(filter), (cursor, signal) => adminApi.listUsers({ ...filter, limit: 50, cursor }, signal));

  return (
    <Page title="Users">
      <Group align="flex-end">
        <TextInput
          label="Search"
          placeholder="Name or email"
          type="search"
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          style={{ flex: 1 }}
        />
        <Select label="Role" placeholder="All roles" data={ROLE_OPTIONS} value={role} onChange={(value) => setRole(value as PlatformRole | null)} clearable w={260} />
      </Group>
      {users.isPending && <SectionLoader label="Loading the users" />}
      <QueryAlert title="Could not load the users" error={users.error} retry={() => void users.refetch()} />
      {users.data && items.length === 0 && <Text c="dimmed">No user matches.</Text>}
      {items.length > 0 && <UsersTable users={items} />}
      <LoadMore query={users} />
    </Page>
  );
}
