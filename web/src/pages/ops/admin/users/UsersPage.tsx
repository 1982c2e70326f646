import { Button, Group, Select, Text, TextInput } from '@mantine/core';
import { PLATFORM_ROLES, USER_STATUSES, type PlatformRole, type UserStatus } from '@contracts';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { USERS_PAGE_SIZE, adminApi, adminKeys, type UserListFilter } from '../../../../admin/admin.api';
import { SuperadminOnly } from '../../../../admin/SuperadminOnly';
import { STATUS_LABELS } from '../../../../admin/UserStatusBadge';
import { roleLabel } from '../../../../auth/roles';
import { Page } from '../../../../layout/Page';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';
import { UsersTable } from './UsersTable';

const ROLE_OPTIONS = PLATFORM_ROLES.map((role) => ({ value: role, label: roleLabel(role) }));
const STATUS_OPTIONS = USER_STATUSES.map((status) => ({ value: status, label: STATUS_LABELS[status] }));

/** `/ops/users`: every user, newest first, by role, status and a name/email search (spec 4.7 rule 5); filters and page in the address. */
export function UsersPage() {
  return (
    <SuperadminOnly title="Users">
      <UsersList />
    </SuperadminOnly>
  );
}

function UsersList() {
  const [params, setParams] = useSearchParams();
  const role = (PLATFORM_ROLES as readonly string[]).includes(params.get('role') ?? '') ? (params.get('role') as PlatformRole) : null;
  const status = (USER_STATUSES as readonly string[]).includes(params.get('status') ?? '') ? (params.get('status') as UserStatus) : null;
  const cursor = params.get('cursor') ?? undefined;
  const [search, setSearch] = useState(params.get('q') ?? '');
  const [q] = useDebouncedValue(search.trim(), 300);
  const filter: UserListFilter = { role: role ?? undefined, status: status ?? undefined, q: q || undefined };

  const change = (key: 'role' | 'status' | 'q', value: string | null, replace = false) => {
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value) next.set(key, value);
        else next.delete(key);
        next.delete('cursor');
        return next;
      },
      { replace },
    );
  };
  // The typed search reaches the address once it settles.
  useEffect(() => {
    if ((params.get('q') ?? '') !== q) change('q', q || null, true);
  }, [q]);

  const users = useQuery({
    queryKey: adminKeys.userList(filter, cursor),
    queryFn: ({ signal }) => adminApi.listUsers({ ...filter, limit: USERS_PAGE_SIZE, cursor }, signal),
    placeholderData: keepPreviousData,
  });
  const items = users.data?.items ?? [];

  return (
    <Page title="Users">
      <Group align="flex-end" gap="sm" role="search" aria-label="Filter the users">
        <TextInput label="Search" placeholder="Name or email" type="search" value={search} onChange={(event) => setSearch(event.currentTarget.value)} style={{ flex: '2 1 16rem', minWidth: 0 }} />
        <Select label="Role" placeholder="All roles" data={ROLE_OPTIONS} value={role} onChange={(value) => change('role', value)} clearable style={{ flex: '1 1 12rem', minWidth: 0 }} />
        <Select label="Status" placeholder="All statuses" data={STATUS_OPTIONS} value={status} onChange={(value) => change('status', value)} clearable style={{ flex: '1 1 10rem', minWidth: 0 }} />
      </Group>
      {users.isPending && <SectionLoader label="Loading the users" />}
      <QueryAlert title="Could not load the users" error={users.error} retry={() => void users.refetch()} />
      {users.data && items.length === 0 && <Text c="dimmed">No user matches.</Text>}
      {items.length > 0 && <UsersTable users={items} />}
      {(cursor || users.data?.nextCursor) && (
        <Group justify="center" gap="sm">
          {cursor && (
            <Button
              variant="default"
              onClick={() =>
                setParams((current) => {
                  const next = new URLSearchParams(current);
                  next.delete('cursor');
                  return next;
                })
              }
            >
              First page
            </Button>
          )}
          {users.data?.nextCursor && (
            <Button
              variant="default"
              onClick={() =>
                setParams((current) => {
                  const next = new URLSearchParams(current);
                  next.set('cursor', users.data!.nextCursor!);
                  return next;
                })
              }
              loading={users.isFetching}
            >
              Next page
            </Button>
          )}
        </Group>
      )}
    </Page>
  );
}
