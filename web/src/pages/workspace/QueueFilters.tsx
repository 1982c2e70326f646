import { CloseButton, Group, Select, TextInput } from '@mantine/core';
import { CONVERSATION_CHANNELS } from '@contracts';
import { useEffect, useState } from 'react';
import { useCurrentUser } from '../../auth/current-user';
import { channelName, useQueueFilters, type QueueView } from './queue-data';

const SEARCH_DELAY_MS = 400;

/** The search box: the address follows the typing once it pauses. */
function SearchBox({ value, onSearch }: { value: string; onSearch: (q: string | undefined) => void }) {
  const [text, setText] = useState(value);
  // Back and Forward (or a cleared filter) change the address: the box follows it.
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = setTimeout(() => onSearch(text.trim() || undefined), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, value, onSearch]);

  return (
    <TextInput
      type="search"
      label="Search"
      placeholder="Words in the messages"
      value={text}
      onChange={(event) => setText(event.currentTarget.value)}
      onKeyDown={(event) => {
        if (event.key === 'Enter') onSearch(text.trim() || undefined);
      }}
      rightSection={text ? <CloseButton aria-label="Clear the search" size="sm" onClick={() => setText('')} /> : null}
      w={{ base: '100%', sm: 260 }}
      data-testid="queue-search"
    />
  );
}

/** Filters by org, Specialist, channel and assignee, and the search: each a part of the address. */
export function QueueFilters({ view, onChange }: { view: QueueView; onChange: (change: Partial<QueueView>) => void }) {
  const filters = useQueueFilters();
  const user = useCurrentUser();
  const specialists = view.orgId ? filters.specialists.filter((s) => s.orgIds.includes(view.orgId!)) : filters.specialists;
  const select = { clearable: true, searchable: true, w: { base: '100%', xs: 200 }, comboboxProps: { withinPortal: true } } as const;

  return (
    <Group gap="sm" align="flex-end" data-testid="queue-filters">
      <SearchBox value={view.q ?? ''} onSearch={(q) => onChange({ q })} />
      <Select
        {...select}
        label="Org"
        placeholder="All orgs"
        data={filters.orgs.map((o) => ({ value: o.id, label: o.name }))}
        value={view.orgId ?? null}
        onChange={(orgId) => onChange({ orgId: orgId ?? undefined })}
        data-testid="queue-filter-org"
      />
      <Select
        {...select}
        label="Specialist"
        placeholder="All Specialists"
        data={specialists.map((s) => ({ value: s.id, label: s.name }))}
        value={view.specialistId ?? null}
        onChange={(specialistId) => onChange({ specialistId: specialistId ?? undefined })}
        data-testid="queue-filter-specialist"
      />
      <Select
        {...select}
        searchable={false}
        label="Channel"
        placeholder="All channels"
        data={CONVERSATION_CHANNELS.map((c) => ({ value: c, label: channelName(c) }))}
        value={view.channel ?? null}
        onChange={(channel) => onChange({ channel: (channel ?? undefined) as QueueView['channel'] })}
        data-testid="queue-filter-channel"
      />
      <Select
        {...select}
        label="Assigned to"
        placeholder="Anyone"
        data={[
          { value: 'me', label: 'Me' },
          { value: 'unassigned', label: 'Nobody' },
          ...filters.experts.filter((e) => e.id !== user.id).map((e) => ({ value: e.id, label: e.name || 'An Expert without a name' })),
        ]}
        value={view.assignee ?? null}
        onChange={(assignee) => onChange({ assignee: assignee ?? undefined })}
        data-testid="queue-filter-assignee"
      />
    </Group>
  );
}
