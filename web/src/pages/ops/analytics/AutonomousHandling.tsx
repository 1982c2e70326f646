import { Group, Stack, Table, Text, Title } from '@mantine/core';
import type { HandlingRate, OrgAutonomousHandling } from '@contracts';
import { useQuery } from '@tanstack/react-query';
import { billingApi, billingKeys } from '../../../billing/billing.api';
import { RangePicker, rangeOf, useRangeParam } from '../../../billing/charts';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';

const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });

/** "44.4%", or "—" when there were no conversations (no rate, not 0 %). */
export function formatRate(rate: number | null): string {
  return rate === null ? '—' : percent.format(rate);
}

/** "44.4% (4 of 9)": the rate with what it counts. */
function rateWithCounts(r: HandlingRate): string {
  return r.rate === null ? '—' : `${formatRate(r.rate)} (${r.autonomous} of ${r.conversations})`;
}

function RateTable({ label, testId, rows }: { label: string; testId: string; rows: Array<HandlingRate & { key: string; name: string }> }) {
  return (
    <Table striped withTableBorder aria-label={`Autonomous handling per ${label.toLowerCase()}`} data-testid={`${testId}-table`}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{label}</Table.Th>
          <Table.Th ta="right">Handled alone</Table.Th>
          <Table.Th ta="right">Answered</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((r) => (
          <Table.Tr key={r.key} data-testid={`${testId}-row`}>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{r.name}</Table.Td>
            <Table.Td ta="right">{rateWithCounts(r)}</Table.Td>
            <Table.Td ta="right">{r.autoResponded}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** The total line and the per-Specialist table (and per org, platform wide). */
function HandlingTables({ handling, scope, byOrg }: { handling: OrgAutonomousHandling; scope: string; byOrg?: Array<HandlingRate & { orgId: string; name: string }> }) {
  const t = handling.total;
  return (
    <Stack gap="xs">
      <Text data-testid="autonomy-total">
        {scope}: <b>{formatRate(t.rate)}</b>
        {t.rate === null
          ? ' (no conversations in this range).'
          : ` of ${t.conversations} conversation${t.conversations === 1 ? '' : 's'} handled by the Specialist alone (${t.autonomous}); the Specialist answered ${t.autoResponded}.`}
      </Text>
      {byOrg && byOrg.length > 0 && <RateTable label="Org" testId="autonomy-org" rows={byOrg.map((o) => ({ ...o, key: o.orgId }))} />}
      {handling.bySpecialist.length > 0 && <RateTable label="Specialist" testId="autonomy-specialist" rows={handling.bySpecialist.map((s) => ({ ...s, key: s.specialistId }))} />}
      <Text size="xs" c="dimmed">
        Conversations created in the range that the Specialist answered with no Expert reply, correction or attention-list item.
      </Text>
    </Stack>
  );
}

/** `/ops/analytics`: the autonomous handling rate platform wide, per org and per Specialist. */
export function AutonomousHandlingSection() {
  const [days, setDays] = useRangeParam();
  const range = rangeOf(days);
  const data = useQuery({ queryKey: billingKeys.workload(range), queryFn: ({ signal }) => billingApi.workload(range, signal) });
  return (
    <Stack gap="sm" data-testid="autonomy">
      <Group justify="space-between" wrap="wrap">
        <Title order={2} size="h3">
          Autonomous handling
        </Title>
        <RangePicker value={days} onChange={setDays} />
      </Group>
      {data.isPending ? (
        <SectionLoader label="Loading the autonomous handling rate" />
      ) : data.error ? (
        <QueryAlert title="Could not load the autonomous handling rate" error={data.error} retry={() => void data.refetch()} />
      ) : (
        <HandlingTables handling={data.data.autonomousHandling} byOrg={data.data.autonomousHandling.byOrg} scope="Platform wide" />
      )}
    </Stack>
  );
}

/** `/ops/billing?org=<id>`: the org's autonomous handling rate over the page's range, and per Specialist. */
export function OrgAutonomousHandling({ handling }: { handling: OrgAutonomousHandling }) {
  return (
    <Stack gap="xs" data-testid="autonomy">
      <Title order={3} size="h4">
        Autonomous handling
      </Title>
      <HandlingTables handling={handling} scope="This org" />
    </Stack>
  );
}
