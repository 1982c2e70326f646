import { Badge, Group, Table, Text } from '@mantine/core';
import type { CoverageItem } from '../../../../ops/am.api';

/** Per assigned Specialist, the Experts covering it. Informational only: it never gates the invite. */
export function CoverageSummary({ coverage }: { coverage: CoverageItem[] }) {
  if (coverage.length === 0) return <Text c="dimmed">No Specialist is assigned yet, so there is nothing to cover.</Text>;
  return (
    <Table data-testid="coverage-table">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Specialist</Table.Th>
          <Table.Th>Covered by</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {coverage.map((item) => (
          <Table.Tr key={item.assignmentId}>
            <Table.Td>{item.specialistName}</Table.Td>
            <Table.Td>
              {item.experts.length === 0 ? (
                <Badge color="gray" variant="outline">
                  Not covered
                </Badge>
              ) : (
                <Group gap="xs">
                  {item.experts.map((e) => (
                    <Badge key={`${e.id}-${e.scope}`} variant="light" color={e.scope === 'org' ? 'indigo' : 'teal'} title={e.email}>
                      {e.name}
                      {e.scope === 'org' ? ' (org-wide)' : ''}
                    </Badge>
                  ))}
                </Group>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
