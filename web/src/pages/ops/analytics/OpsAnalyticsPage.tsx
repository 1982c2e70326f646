import { BarChart } from '@mantine/charts';
import { Alert, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useCurrentUser } from '../../../auth/current-user';
import { billingApi, billingKeys } from '../../../billing/billing.api';
import { ChartCard, RangePicker, rangeOf, useRangeParam } from '../../../billing/charts';
import { Page } from '../../../layout/Page';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import { AutonomousHandlingSection } from './AutonomousHandling';

function Workload() {
  const [days, setDays] = useRangeParam();
  const range = rangeOf(days);
  const workload = useQuery({ queryKey: billingKeys.workload(range), queryFn: ({ signal }) => billingApi.workload(range, signal) });
  return (
    <Stack gap="sm">
      <Group justify="space-between" wrap="wrap">
        <Title order={2} size="h3">
          Expert workload per Specialist
        </Title>
        <RangePicker value={days} onChange={setDays} />
      </Group>
      {workload.isPending ? (
        <SectionLoader label="Loading the workload" />
      ) : workload.error ? (
        <QueryAlert title="Could not load the workload" error={workload.error} retry={() => void workload.refetch()} />
      ) : workload.data.items.length === 0 ? (
        <Text c="dimmed">No attention-list items in this range.</Text>
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <ChartCard title="Items per Specialist" testId="chart-workload">
            <BarChart
              h={Math.max(140, workload.data.items.length * 40)}
              data={workload.data.items.map((i) => ({ name: i.name, escalations: i.escalations, failures: i.agentFailures }))}
              dataKey="name"
              orientation="vertical"
              type="stacked"
              yAxisProps={{ width: 140 }}
              withLegend
              series={[
                { name: 'escalations', label: 'Escalations', color: 'indigo.6' },
                { name: 'failures', label: 'Agent failures', color: 'red.6' },
              ]}
            />
          </ChartCard>
          <Table.ScrollContainer minWidth={520} type="native" tabIndex={0}>
            <Table striped withTableBorder aria-label="Workload" data-testid="workload-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Specialist</Table.Th>
                  <Table.Th ta="right">Items</Table.Th>
                  <Table.Th ta="right">Open</Table.Th>
                  <Table.Th ta="right">Resolved</Table.Th>
                  <Table.Th ta="right">Avg handle time</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {workload.data.items.map((i) => (
                  <Table.Tr key={i.specialistId}>
                    <Table.Td>{i.name}</Table.Td>
                    <Table.Td ta="right">{i.items}</Table.Td>
                    <Table.Td ta="right">{i.open}</Table.Td>
                    <Table.Td ta="right">{i.resolved}</Table.Td>
                    <Table.Td ta="right">{i.avgHandleMinutes === null ? '—' : `${i.avgHandleMinutes} min`}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </SimpleGrid>
      )}
    </Stack>
  );
}

function Leverage() {
  const leverage = useQuery({ queryKey: billingKeys.leverage, queryFn: ({ signal }) => billingApi.leverage(signal) });
  return (
    <Stack gap="sm">
      <Title order={2} size="h3">
        Expert leverage
      </Title>
      {leverage.isPending ? (
        <SectionLoader label="Loading the leverage" />
      ) : leverage.error ? (
        <QueryAlert title="Could not load the leverage" error={leverage.error} retry={() => void leverage.refetch()} />
      ) : leverage.data.items.length === 0 ? (
        <Text c="dimmed">No Experts yet.</Text>
      ) : (
        <ChartCard title="Clients and Specialist instances per Expert" testId="chart-leverage">
          <BarChart
            h={Math.max(140, leverage.data.items.length * 44)}
            data={leverage.data.items.map((e) => ({ name: e.name || e.email, clients: e.clients, instances: e.specialistInstances }))}
            dataKey="name"
            orientation="vertical"
            yAxisProps={{ width: 160 }}
            withLegend
            series={[
              { name: 'clients', label: 'Client orgs', color: 'teal.6' },
              { name: 'instances', label: 'Specialist instances', color: 'indigo.6' },
            ]}
          />
        </ChartCard>
      )}
    </Stack>
  );
}

/** `/ops/analytics` (spec 8.1, SuperAdmin): the autonomous handling rate, Expert workload per Specialist and Expert leverage; Expert time is never priced. */
export function OpsAnalyticsPage() {
  const user = useCurrentUser();
  return (
    <Page title="Analytics">
      {user.platformRole === 'superadmin' ? (
        <Stack gap="xl">
          <AutonomousHandlingSection />
          <Workload />
          <Leverage />
        </Stack>
      ) : (
        <Alert color="blue" title="Not available to your role">
          Analytics are for superadmins.
        </Alert>
      )}
    </Page>
  );
}
