import { Badge, Card, Group, Table, Text, Title } from '@mantine/core';
import { useCurrentUser } from './current-user';
import { roleLabel } from './roles';

export function WhoIsLoggedInCard() {
  const user = useCurrentUser();
  const organizations = user.orgMemberships.map((membership) => `${membership.orgName ?? membership.orgSlug ?? membership.orgId} (${membership.orgRole})`).join(', ');

  return (
    <Card withBorder maw={560} data-testid="who-is-logged-in" aria-labelledby="who-is-logged-in-title">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4" id="who-is-logged-in-title">
          Signed in as
        </Title>
        <Badge variant="light">{roleLabel(user.platformRole)}</Badge>
      </Group>
      <Table variant="vertical" withRowBorders={false}>
        <Table.Tbody>
          <Table.Tr>
            <Table.Th w={140}>Name</Table.Th>
            <Table.Td>{user.name}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Email</Table.Th>
            <Table.Td>{user.email}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Role</Table.Th>
            <Table.Td>{user.platformRole}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Organizations</Table.Th>
            <Table.Td>
              {organizations || (
                <Text c="dimmed" size="sm">
                  none
                </Text>
              )}
            </Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
    </Card>
  );
}
