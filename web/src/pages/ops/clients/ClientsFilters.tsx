import { Group, Select, TextInput } from '@mantine/core';
import { ORG_STATUS_OPTIONS } from '../../../ops/org-status';
import type { OrgStatus } from '../../../ops/types';

export function ClientsFilters({
  status,
  onStatusChange,
  search,
  onSearchChange,
}: {
  status: OrgStatus | null;
  onStatusChange: (status: OrgStatus | null) => void;
  search: string;
  onSearchChange: (search: string) => void;
}) {
  return (
    <Group align="flex-end">
      <TextInput
        label="Search"
        placeholder="Name, subdomain or email"
        type="search"
        value={search}
        onChange={(event) => onSearchChange(event.currentTarget.value)}
        style={{ flex: 1 }}
      />
      <Select
        label="Status"
        placeholder="All statuses"
        data={ORG_STATUS_OPTIONS}
        value={status}
        onChange={(value) => onStatusChange(value as OrgStatus | null)}
        clearable
        w={260}
      />
    </Group>
  );
}
