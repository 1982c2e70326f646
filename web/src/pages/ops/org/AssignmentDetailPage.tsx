import { Anchor, Badge, Breadcrumbs, Card, Group, Table, Text, Title } from '@mantine/core';
import type { OsaDto } from '@contracts';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { Page } from '../../../layout/Page';
import { amApi, amKeys } from '../../../ops/am.api';
import { formatDate, formatRate } from '../../../ops/format';
import { mailboxStateOf } from '../../../ops/mailbox';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import { useOrg } from '../../../ops/queries';
import { WorkspaceSection } from './WorkspaceSection';

const POLL_MS = 2_000;

function AssignmentCard({ osa }: { osa: OsaDto }) {
  const config = osa.monthly_rate_config;
  return (
    <Card withBorder component="section" aria-label="Assignment">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          Assignment
        </Title>
        {osa.isPrimary && <Badge variant="light">Primary</Badge>}
      </Group>
      <Table variant="vertical" withRowBorders={false}>
        <Table.Tbody>
          <Table.Tr>
            <Table.Th w={200}>Skills</Table.Th>
            <Table.Td>{osa.specialist.skillTags.join(', ') || '—'}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Monthly rate</Table.Th>
            <Table.Td data-testid="osa-rate">{formatRate(osa.rate)}</Table.Td>
          </Table.Tr>
          {osa.monthlyRate !== null && (
            <Table.Tr>
              <Table.Th>Override</Table.Th>
              <Table.Td>
                {osa.monthlyRate} {config.currency}: {osa.overrideReason ?? '—'}
                {(config.rate_effective_from || config.rate_effective_until) && (
                  <Text size="xs" c="dimmed">
                    Effective {formatDate(config.rate_effective_from)} to {formatDate(config.rate_effective_until)}
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
          )}
          <Table.Tr>
            <Table.Th>Assigned</Table.Th>
            <Table.Td>{formatDate(osa.createdAt)}</Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
    </Card>
  );
}

/** `/ops/clients/:id/specialists/:assignmentId`: the OSA detail, polled while its mailbox is being provisioned. */
export function AssignmentDetailPage() {
  const { id = '', assignmentId = '' } = useParams();
  const org = useOrg(id);
  const osa = useQuery({
    queryKey: amKeys.assignment(id, assignmentId),
    queryFn: ({ signal }) => amApi.assignment(id, assignmentId, signal),
    refetchInterval: (query) => (query.state.data && mailboxStateOf(query.state.data) === 'provisioning' ? POLL_MS : false),
  });

  return (
    <Page title={osa.data?.specialist.name ?? 'Specialist'}>
      <Breadcrumbs>
        <Anchor component={Link} to="/ops/clients">
          Clients
        </Anchor>
        <Anchor component={Link} to={`/ops/clients/${id}?tab=specialists`}>
          {org.data?.legalName ?? 'Org'}
        </Anchor>
        <Text>{osa.data?.specialist.name ?? '…'}</Text>
      </Breadcrumbs>
      {osa.isPending && <SectionLoader label="Loading the assignment" />}
      <QueryAlert title="Could not load the assignment" error={osa.error} retry={() => void osa.refetch()} />
      {osa.data && (
        <>
          <AssignmentCard osa={osa.data} />
          <WorkspaceSection osa={osa.data} />
        </>
      )}
    </Page>
  );
}
