import { Anchor, Code, Table, Text } from '@mantine/core';
import type { AuditItem } from '@contracts';
import { Link } from 'react-router';
import { formatDateTime, shortId } from '../../../../ops/format';

function UserLink({ id }: { id: string | null }) {
  if (!id) return <Text c="dimmed">—</Text>;
  return (
    <Anchor component={Link} to={`/ops/users/${id}`} title={id}>
      {shortId(id)}
    </Anchor>
  );
}

/** Audit rows (spec 2.10): who acted (and who impersonated them), the action, its target, the payload. */
export function AuditTable({ rows }: { rows: AuditItem[] }) {
  return (
    <Table data-testid="audit-table" verticalSpacing="xs">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>When</Table.Th>
          <Table.Th>Action</Table.Th>
          <Table.Th>Actor</Table.Th>
          <Table.Th>Impersonated by</Table.Th>
          <Table.Th>Target</Table.Th>
          <Table.Th>Details</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={row.id} data-testid="audit-row" data-action={row.action}>
            <Table.Td>{formatDateTime(row.createdAt)}</Table.Td>
            <Table.Td>
              <Code>{row.action}</Code>
            </Table.Td>
            <Table.Td>
              <UserLink id={row.userId} />
            </Table.Td>
            <Table.Td>
              <UserLink id={row.impersonatorId} />
            </Table.Td>
            <Table.Td>
              <Text size="sm" title={row.resourceId ?? undefined}>
                {row.resourceId ? shortId(row.resourceId) : '—'}
              </Text>
            </Table.Td>
            <Table.Td maw={420}>
              {row.meta && (
                <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                  {JSON.stringify(row.meta)}
                </Code>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
