import { Anchor, Badge, Card, Code, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { channelLabel, reasonLabel } from '../../../channels/channel-info';
import type { InboundEventDto } from '../../../channels/channels.api';
import { formatDateTime } from '../../../ops/format';

function OrgCell({ orgId, orgNames, linkOrgs }: { orgId: string | null; orgNames: Map<string, string>; linkOrgs: boolean }) {
  if (!orgId) return <Text c="dimmed">—</Text>;
  const name = orgNames.get(orgId) ?? 'An organization not listed';
  return linkOrgs ? (
    <Anchor component={Link} to={`/ops/clients/${orgId}`} title={orgId}>
      {name}
    </Anchor>
  ) : (
    <span title={orgId}>{name}</span>
  );
}

/** Quarantined inbound events, newest first: what came in, why no turn was produced, and for which org. */
export function QuarantineTable({ events, orgNames, linkOrgs }: { events: InboundEventDto[]; orgNames: Map<string, string>; linkOrgs: boolean }) {
  return (
    <Card withBorder padding={0}>
      <Table.ScrollContainer minWidth={860} type="native" tabIndex={0}>
        <Table data-testid="quarantine-table" verticalSpacing="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Received</Table.Th>
              <Table.Th>Channel</Table.Th>
              <Table.Th>Reason</Table.Th>
              <Table.Th>Organization</Table.Th>
              <Table.Th>Body</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {events.map((event) => (
              <Table.Tr key={event.id} data-testid="quarantine-row" data-id={event.id} data-channel={event.channel} data-reason={event.reason ?? ''} data-org-id={event.orgId ?? ''}>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(event.receivedAt)}</Table.Td>
                <Table.Td>{channelLabel(event.channel)}</Table.Td>
                <Table.Td>
                  <Badge variant="light" color="orange" tt="none">
                    {reasonLabel(event.reason)}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <OrgCell orgId={event.orgId} orgNames={orgNames} linkOrgs={linkOrgs} />
                </Table.Td>
                <Table.Td maw={520}>
                  <Code block data-testid="quarantine-preview" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', maxHeight: 120, overflow: 'auto' }}>
                    {event.preview}
                  </Code>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}
