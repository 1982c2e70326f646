import { Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { amApi } from '../ops/am.api';
import { adminApi } from './admin.api';

interface Option {
  value: string;
  label: string;
}

interface Source {
  /** Up to 20 matches of a typed search. */
  search: (q: string, signal: AbortSignal) => Promise<Option[]>;
  /** The label of an id already chosen (from the page's address). */
  one: (id: string, signal: AbortSignal) => Promise<Option>;
}

const SOURCES: Record<'user' | 'org', Source> = {
  user: {
    search: async (q, signal) => (await adminApi.listUsers({ q: q || undefined, limit: 20 }, signal)).items.map((u) => ({ value: u.id, label: u.name ? `${u.name} (${u.email})` : u.email })),
    one: async (id, signal) => {
      const u = await adminApi.user(id, signal);
      return { value: u.id, label: u.name ? `${u.name} (${u.email})` : u.email };
    },
  },
  org: {
    search: async (q, signal) => (await amApi.listOrgs({ q: q || undefined, limit: 20 }, signal)).items.map((o) => ({ value: o.id, label: o.legalName })),
    one: async (id, signal) => {
      const o = await amApi.getOrg(id, signal);
      return { value: o.id, label: o.legalName };
    },
  },
};

/** A searchable select of users or organizations by name, answered by the API as the user types. */
export function EntityPicker({ kind, label, value, onChange, placeholder }: { kind: 'user' | 'org'; label: string; value: string | null; onChange: (id: string | null) => void; placeholder: string }) {
  const source = SOURCES[kind];
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 250);
  const chosen = useQuery({ queryKey: ['picker', kind, 'one', value], queryFn: ({ signal }) => source.one(value!, signal), enabled: !!value, staleTime: 60_000 });
  const chosenLabel = chosen.data?.label;
  // While the box shows the chosen name, list everything; once the user types, search for it.
  const term = q === chosenLabel ? '' : q;
  const matches = useQuery({ queryKey: ['picker', kind, 'search', term], queryFn: ({ signal }) => source.search(term, signal), staleTime: 30_000 });
  const data = [...(chosen.data ? [chosen.data] : []), ...(matches.data ?? []).filter((o) => o.value !== value)];

  return (
    <Select
      label={label}
      placeholder={placeholder}
      searchable
      clearable
      data={data}
      value={value}
      onChange={(id) => onChange(id)}
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options }) => options}
      nothingFoundMessage={matches.isFetching ? 'Searching…' : 'No match'}
      error={chosen.error ? 'This one no longer exists' : undefined}
      style={{ flex: '1 1 14rem', minWidth: 0 }}
      comboboxProps={{ withinPortal: true }}
    />
  );
}
