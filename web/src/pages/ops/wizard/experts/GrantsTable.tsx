import { Alert, Badge, Button, Table, Text } from '@mantine/core';
import type { GrantDto } from '@contracts';
import { useRemoveGrant } from './queries';

/** The org's current grants, each removable. */
export function GrantsTable({ orgId, grants, specialistName }: { orgId: string; grants: GrantDto[]; specialistName: (id: string) => string }) {
  const remove = useRemoveGrant(orgId);
  if (grants.length === 0) return <Text c="dimmed">No Expert has been granted coverage yet.</Text>;
  return (
    <>
      {remove.error && (
        <Alert color="red" role="alert" title="Could not remove the grant">
          {remove.error.message}
        </Alert>
      )}
      <Table data-testid="grants-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Expert</Table.Th>
            <Table.Th>Scope</Table.Th>
            <Table.Th>Specialists</Table.Th>
            <Table.Th aria-label="Actions" />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {grants.map((grant) => (
            <Table.Tr key={grant.id} data-testid="grant-row">
              <Table.Td>
                {grant.expert.name}
                <Text size="xs" c="dimmed">
                  {grant.expert.email}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge variant="light" color={grant.scope === 'org' ? 'indigo' : 'teal'}>
                  {grant.scope === 'org' ? 'Whole org' : 'Specialists'}
                </Badge>
              </Table.Td>
              <Table.Td>{grant.scope === 'org' ? 'All, current and future' : grant.specialistIds.map(specialistName).join(', ')}</Table.Td>
              <Table.Td>
                <Button
                  size="xs"
                  variant="subtle"
                  color="red"
                  loading={remove.isPending && remove.variables === grant.id}
                  onClick={() => remove.mutate(grant.id)}
                  aria-label={`Remove the grant of ${grant.expert.name}`}
                >
                  Remove
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </>
  );
}
