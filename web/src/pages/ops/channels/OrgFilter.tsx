import { Select, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';

export interface OrgOption {
  value: string;
  label: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The org filter of an ops list: a searchable list of the orgs for those who may list them
 * (`options`), else the org id typed in.
 */
export function OrgFilter({ options, value, onChange }: { options: OrgOption[] | undefined; value: string | null; onChange: (orgId: string | null) => void }) {
  const [typed, setTyped] = useState(value ?? '');
  useEffect(() => setTyped(value ?? ''), [value]);

  if (options) {
    return (
      <Select
        label="Organization"
        placeholder="All organizations"
        data={options}
        value={value}
        onChange={onChange}
        searchable
        clearable
        nothingFoundMessage="No organization matches"
        w={320}
        maw="100%"
        data-testid="org-filter"
      />
    );
  }
  const invalid = typed.trim() !== '' && !UUID.test(typed.trim());
  return (
    <TextInput
      label="Organization id"
      placeholder="All organizations"
      value={typed}
      onChange={(event) => {
        const next = event.currentTarget.value;
        setTyped(next);
        if (next.trim() === '') onChange(null);
        else if (UUID.test(next.trim())) onChange(next.trim().toLowerCase());
      }}
      error={invalid ? 'Must be an organization id (uuid)' : undefined}
      w={360}
      maw="100%"
      data-testid="org-filter"
    />
  );
}
