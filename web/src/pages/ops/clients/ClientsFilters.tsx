import type { OrgStatus } from '@contracts';
import { Button, Group, Select, TextInput } from '@mantine/core';
import { ORG_STATUS_OPTIONS } from '../../../ops/org-status';

export function ClientsFilters({
  status,
  onStatusChange,
  search,
  onSearchChange,
  onClear,
}: {
  status: OrgStatus | null;
  onStatusChange: (status: OrgStatus | null) => void;
  search: string;
  onSearchChange: (search: string) => void;
  /** Shown while a filter is set. */
  onClear: (() => void) | null;
}) {
  return (
    <Group align="flex-end" wrap="wrap" gap="sm">
      <TextInput label="Search" placeholder="Name, subdomain or email" type="search" value={search} onChange={(event) => onSearchChange(event.currentTarget.value)} style={{ flex: '1 1 220px' }} />
      <Select
        label="Status"
        placeholder="All statuses"
        data={ORG_STATUS_OPTIONS}
        value={status}
        onChange={(value) => onStatusChange(value as OrgStatus | null)}
        clearable
        style={{ flex: '1 1 220px', maxWidth: 280 }}
      />
      {onClear && (
        <Button variant="subtle" onClick={onClear}>
          Clear filters
        </Button>
      )}
    </Group>
  );
}
