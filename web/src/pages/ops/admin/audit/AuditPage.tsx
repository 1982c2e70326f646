import { Group, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useSearchParams } from 'react-router';
import { adminApi, adminKeys, type AuditFilter } from '../../../../admin/admin.api';
import { LoadMore, useCursorList } from '../../../../admin/paging';
import { SuperadminOnly } from '../../../../admin/SuperadminOnly';
import { Page } from '../../../../layout/Page';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';
import { AuditTable } from './AuditTable';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FIELDS = [
  { key: 'action', label: 'Action', placeholder: 'admin.user.updated' },
  { key: 'actorId', label: 'Actor id', placeholder: 'user id' },
  { key: 'resourceId', label: 'Target id', placeholder: 'resource id' },
] as const;

/** `/ops/audit`: the platform-wide log (spec 6.3), actions by and against anyone, with filters kept in the URL. */
export function AuditPage() {
  return (
    <SuperadminOnly title="Audit log">
      <AuditLog />
    </SuperadminOnly>
  );
}

function AuditLog() {
  const [params, setParams] = useSearchParams();
  const [debounced] = useDebouncedValue(params.toString(), 300);
  const current = new URLSearchParams(debounced);
  const filter: AuditFilter = {};
  for (const { key } of FIELDS) {
    const value = current.get(key)?.trim();
    if (value && (key === 'action' || (key === 'actorId' ? UUID.test(value) : true))) filter[key] = value;
  }
  const { query: log, items: rows } = useCursorList(adminKeys.audit(filter), (cursor, signal) => adminApi.audit(filter, cursor, signal));

  return (
    <Page title="Audit log">
      <Group align="flex-end">
        {FIELDS.map(({ key, label, placeholder }) => (
          <TextInput
            key={key}
            label={label}
            placeholder={placeholder}
            value={params.get(key) ?? ''}
            onChange={(event) => {
              const next = new URLSearchParams(params);
              if (event.currentTarget.value) next.set(key, event.currentTarget.value);
              else next.delete(key);
              setParams(next, { replace: true });
            }}
            error={key === 'actorId' && params.get(key) && !UUID.test(params.get(key)!.trim()) ? 'A user id' : undefined}
            style={{ flex: 1 }}
          />
        ))}
      </Group>
      {log.isPending && <SectionLoader label="Loading the audit log" />}
      <QueryAlert title="Could not load the audit log" error={log.error} retry={() => void log.refetch()} />
      {log.data && rows.length === 0 && <Text c="dimmed">No audit row matches.</Text>}
      {rows.length > 0 && <AuditTable rows={rows} />}
      <LoadMore query={log} />
    </Page>
  );
}
