import { Anchor, Table, Text } from '@mantine/core';
import { Link, useNavigate } from 'react-router';
import { formatDate, shortId } from '../../../ops/format';
import { orgHomePath } from '../../../ops/org-status';
import { OrgStatusBadge } from '../../../ops/OrgStatusBadge';
import type { OrgDto } from '../../../ops/types';

function AssignedAm({ amId, currentUserId }: { amId: string | null; currentUserId: string }) {
  if (!amId) return <Text c="dimmed">—</Text>;
  if (amId === currentUserId) return <>you</>;
  return <span title={amId}>{shortId(amId)}</span>;
}

/** The orgs; a row opens the wizard while the org is pending, else its overview. */
export function ClientsTable({ orgs, currentUserId }: { orgs: OrgDto[]; currentUserId: string }) {
  const navigate = useNavigate();
  return (
    <Table highlightOnHover data-testid="clients-table">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Legal name</Table.Th>
          <Table.Th>Subdomain</Table.Th>
          <Table.Th>Status</Table.Th>
          <Table.Th>Assigned AM</Table.Th>
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
              <Anchor component={Link} to={orgHomePath(org)}>
                {org.legalName}
              </Anchor>
            </Table.Td>
            <Table.Td>{org.slug}</Table.Td>
            <Table.Td>
              <OrgStatusBadge status={org.status} />
            </Table.Td>
            <Table.Td>
              <AssignedAm amId={org.assignedAmId} currentUserId={currentUserId} />
            </Table.Td>
            <Table.Td>{formatDate(org.createdAt)}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
