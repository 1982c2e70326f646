import { Button, Group, Select, Text, TextInput } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { adminApi, adminKeys, type AuditFilter } from '../../../../admin/admin.api';
import { AUDIT_ACTIONS } from '../../../../admin/audit-text';
import { EntityPicker } from '../../../../admin/EntityPicker';
import { LoadMore, useCursorList } from '../../../../admin/paging';
import { SuperadminOnly } from '../../../../admin/SuperadminOnly';
import { Page } from '../../../../layout/Page';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';
import { AuditTable } from './AuditTable';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const ACTION_OPTIONS = Object.entries(AUDIT_ACTIONS)
  .map(([value, { label }]) => ({ value, label }))
  .sort((a, b) => a.label.localeCompare(b.label));
const KEYS = ['userId', 'orgId', 'action', 'from', 'to'] as const;

/** A day picked in the browser's time zone, as the instant its local midnight is (`to`: the next midnight, excluded). */
function localDayStart(day: string, next = false): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d + (next ? 1 : 0)).toISOString();
}

/** The page's address -> the API's filter; a malformed value is left out (and shown as wrong). */
export function auditFilterOf(params: URLSearchParams): AuditFilter {
  const filter: AuditFilter = {};
  const userId = params.get('userId');
  const orgId = params.get('orgId');
  const from = params.get('from');
  const to = params.get('to');
  if (userId && UUID.test(userId)) filter.userId = userId;
  if (orgId && UUID.test(orgId)) filter.orgId = orgId;
  if (params.get('action')) filter.action = params.get('action')!;
  if (from && DAY.test(from)) filter.from = localDayStart(from);
  if (to && DAY.test(to)) filter.to = localDayStart(to, true);
  return filter;
}

/** `/ops/audit`: the platform-wide log (spec 6.3), actions by and against anyone, with its filters in the address. */
export function AuditPage() {
  return (
    <SuperadminOnly title="Audit log">
      <AuditLog />
    </SuperadminOnly>
  );
}

function AuditLog() {
  const [params, setParams] = useSearchParams();
  const filter = auditFilterOf(params);
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  const rangeError = from && to && DAY.test(from) && DAY.test(to) && to < from ? 'The end is before the start' : undefined;
  const { query: log, items: rows } = useCursorList(adminKeys.audit(filter), (cursor, signal) => adminApi.audit(filter, cursor, signal), { enabled: !rangeError });
  const set = (key: (typeof KEYS)[number], value: string | null) => {
    // From the address as it is now: two quick changes (From, then To) before a render would
    // otherwise each start from the same old parameters and the second would undo the first.
    const next = new URLSearchParams(window.location.search);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };
  const filtered = KEYS.some((key) => params.get(key));
  const action = params.get('action');
  const actionOptions = action && !AUDIT_ACTIONS[action] ? [{ value: action, label: action }, ...ACTION_OPTIONS] : ACTION_OPTIONS;

  return (
    <Page title="Audit log">
      <Group align="flex-start" gap="sm" role="search" aria-label="Filter the audit log">
        <EntityPicker kind="user" label="User" placeholder="Anyone" value={params.get('userId')} onChange={(id) => set('userId', id)} />
        <EntityPicker kind="org" label="Organization" placeholder="Every organization" value={params.get('orgId')} onChange={(id) => set('orgId', id)} />
        <Select
          label="Action"
          placeholder="Every action"
          data={actionOptions}
          value={action}
          onChange={(value) => set('action', value)}
          searchable
          clearable
          style={{ flex: '1 1 14rem', minWidth: 0 }}
        />
        <Group gap="sm" wrap="nowrap" style={{ flex: '1 1 18rem', minWidth: 0 }}>
          <TextInput label="From" type="date" value={from} max={to || undefined} onChange={(e) => set('from', e.currentTarget.value)} style={{ flex: 1, minWidth: 0 }} />
          <TextInput label="To" type="date" value={to} min={from || undefined} onChange={(e) => set('to', e.currentTarget.value)} error={rangeError} style={{ flex: 1, minWidth: 0 }} />
        </Group>
      </Group>
      {filtered && (
        <Group justify="flex-end">
          <Button variant="subtle" size="xs" onClick={() => setParams(new URLSearchParams(), { replace: true })}>
            Clear the filters
          </Button>
        </Group>
      )}
      {log.isPending && !rangeError && <SectionLoader label="Loading the audit log" />}
      <QueryAlert title="Could not load the audit log" error={log.error} retry={() => void log.refetch()} />
      {log.data && rows.length === 0 && <Text c="dimmed">Nothing recorded matches these filters.</Text>}
      {rows.length > 0 && <AuditTable rows={rows} />}
      <LoadMore query={log} />
    </Page>
  );
}
