import { Anchor, Badge, Button, Group, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { formatRate } from '../../../ops/format';
import { MailboxBadge } from '../../../ops/MailboxBadge';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import { useAssignments } from '../../../ops/queries';
import { setupPath } from '../wizard/steps';

/** The org's assignments, each leading to its OSA detail; Reassign opens the Specialist step. */
export function SpecialistsTab({ orgId }: { orgId: string }) {
  const assignments = useAssignments(orgId);
  return (
    <>
      <Group justify="space-between" mb="sm">
        <Text size="sm" c="dimmed">
          Specialists assigned to this org, each with its own workspace address and mailbox.
        </Text>
        <Button component={Link} to={setupPath(orgId, 'step-2')} variant="light">
          Reassign
        </Button>
      </Group>
      {assignments.isPending && <SectionLoader label="Loading the Specialists" />}
      <QueryAlert title="Could not load the Specialists" error={assignments.error} retry={() => void assignments.refetch()} />
      {assignments.data?.length === 0 && <Text c="dimmed">No Specialist is assigned yet.</Text>}
      {assignments.data && assignments.data.length > 0 && (
        <Table data-testid="specialists-table" highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Specialist</Table.Th>
              <Table.Th>Rate</Table.Th>
              <Table.Th>Workspace address</Table.Th>
              <Table.Th>Mailbox</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {assignments.data.map((osa) => (
              <Table.Tr key={osa.id} data-testid="specialist-row" data-primary={osa.isPrimary}>
                <Table.Td>
                  <Group gap="xs">
                    <Anchor component={Link} to={`/ops/clients/${orgId}/specialists/${osa.id}`}>
                      {osa.specialist.name}
                    </Anchor>
                    {osa.isPrimary && (
                      <Badge variant="light" size="sm" data-testid="primary-badge">
                        Primary
                      </Badge>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td>{formatRate(osa.rate)}</Table.Td>
                <Table.Td>
                  <code data-testid="osa-alias">{osa.email_alias}</code>
                </Table.Td>
                <Table.Td>
                  <MailboxBadge osa={osa} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </>
  );
}
