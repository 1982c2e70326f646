import type { OrgListItem } from '@contracts';
import { Anchor, Card, Table, Text } from '@mantine/core';
import { Link, useNavigate } from 'react-router';
import { formatDate } from '../../../ops/format';
import { orgHomePath } from '../../../ops/org-status';
import { OrgStatusBadge } from '../../../ops/OrgStatusBadge';

function AssignedAm({ org, currentUserId }: { org: OrgListItem; currentUserId: string }) {
  if (!org.assignedAmId) return <Text c="dimmed">Nobody</Text>;
  if (org.assignedAmId === currentUserId) return <>{org.assignedAmName ? `${org.assignedAmName} (you)` : 'you'}</>;
  return <>{org.assignedAmName || 'Unnamed account manager'}</>;
}

/** The orgs; a row opens the wizard while the org is pending, else its overview. Scrolls inside its card on a narrow screen. */
export function ClientsTable({ orgs, currentUserId }: { orgs: OrgListItem[]; currentUserId: string }) {
  const navigate = useNavigate();
  return (
    <Card withBorder padding={0}>
      <Table.ScrollContainer minWidth={640} type="native" tabIndex={0}>
        <Table highlightOnHover data-testid="clients-table" verticalSpacing="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Client</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Account manager</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {orgs.map((org) => (
              <Table.Tr
                key={org.id}
                data-testid="client-row"
                data-slug={org.slug}
                style={{ cursor: 'pointer' }}
                onClick={(event) => {
                  if ((event.target as HTMLElement).closest('a')) return;
                  void navigate(orgHomePath(org));
                }}
              >
                <Table.Td>
                  <Anchor component={Link} to={orgHomePath(org)} fw={500}>
                    {org.legalName}
                  </Anchor>
                  <Text size="xs" c="dimmed" data-testid="client-subdomain">
                    {org.slug}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <OrgStatusBadge status={org.status} />
                </Table.Td>
                <Table.Td data-testid="client-am">
                  <AssignedAm org={org} currentUserId={currentUserId} />
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDate(org.createdAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}
