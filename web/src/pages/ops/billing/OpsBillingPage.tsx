import { Alert, Anchor, Button, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import type { InvoiceDto, OpsBillingOrg } from '@contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useCurrentUser } from '../../../auth/current-user';
import { billingApi, billingKeys, formatCents, formatUsd } from '../../../billing/billing.api';
import { ChartCard, CostBars, CostDonut, CostTrendChart, RangePicker, UsageChart, rangeOf } from '../../../billing/charts';
import { InvoiceList, PaymentStateBadge } from '../../../billing/InvoiceList';
import { Page } from '../../../layout/Page';
import { formatDateTime } from '../../../ops/format';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';

function PaymentStates({ onlyOrg }: { onlyOrg?: string }) {
  const orgs = useQuery({ queryKey: billingKeys.opsOrgs, queryFn: ({ signal }) => billingApi.opsOrgs(signal) });
  if (orgs.isPending) return <SectionLoader label="Loading payment states" />;
  if (orgs.error) return <QueryAlert title="Could not load payment states" error={orgs.error} retry={() => void orgs.refetch()} />;
  const rows = orgs.data.items.filter((o) => !onlyOrg || o.orgId === onlyOrg);
  if (rows.length === 0) return <Text c="dimmed">No active org yet.</Text>;
  return (
    <Table striped highlightOnHover withTableBorder aria-label="Payment states" data-testid="payment-states">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Org</Table.Th>
          <Table.Th>Status</Table.Th>
          <Table.Th>Payment</Table.Th>
          <Table.Th>Grace ends</Table.Th>
          <Table.Th ta="right">Monthly fees</Table.Th>
          <Table.Th ta="right">Unpaid</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((o: OpsBillingOrg) => (
          <Table.Tr key={o.orgId} data-testid="payment-state-row">
            <Table.Td>
              <Anchor component={Link} to={`/ops/billing?org=${o.orgId}`}>
                {o.legalName}
              </Anchor>
            </Table.Td>
            <Table.Td>{o.orgStatus}</Table.Td>
            <Table.Td>
              <PaymentStateBadge state={o.paymentState} />
              {o.lastFailureReason && (
                <Text size="xs" c="dimmed">
                  {o.lastFailureReason}
                </Text>
              )}
            </Table.Td>
            <Table.Td>{formatDateTime(o.graceEndsAt)}</Table.Td>
            <Table.Td ta="right">
              {formatCents(o.monthlyRunRateCents, o.currency)} ({o.specialistInstances} Specialist{o.specialistInstances === 1 ? '' : 's'})
            </Table.Td>
            <Table.Td ta="right">
              {formatCents(o.outstandingCents, o.currency)} ({o.openInvoices})
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function PlatformCosts() {
  const [days, setDays] = useState('30');
  const range = rangeOf(days);
  const costs = useQuery({ queryKey: billingKeys.platformCosts(range), queryFn: ({ signal }) => billingApi.platformCosts(range, signal) });
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={2} size="h3">
          Platform LLM cost
        </Title>
        <RangePicker value={days} onChange={setDays} />
      </Group>
      {costs.isPending ? (
        <SectionLoader label="Loading LLM cost" />
      ) : costs.error ? (
        <QueryAlert title="Could not load LLM cost" error={costs.error} retry={() => void costs.refetch()} />
      ) : (
        <>
          <Text data-testid="platform-cost-total">
            {formatUsd(costs.data.totalMicroUsd)} from {costs.data.from} to {costs.data.to}, from the cost ledger (never invoiced).
          </Text>
          {costs.data.reconciliation && (
            <Alert color={costs.data.reconciliation.alerted ? 'orange' : 'gray'} title={`Reconciliation of ${costs.data.reconciliation.day}`} data-testid="reconciliation">
              Ledger {formatUsd(costs.data.reconciliation.ledgerMicroUsd)}, tracing tool{' '}
              {costs.data.reconciliation.tracingMicroUsd === null ? 'unavailable' : formatUsd(costs.data.reconciliation.tracingMicroUsd)}
              {costs.data.reconciliation.driftPercent !== null ? ` (${costs.data.reconciliation.driftPercent.toFixed(1)} % apart)` : ''}. The ledger is authoritative.
            </Alert>
          )}
          <ChartCard title="Daily trend" testId="chart-trend">
            <CostTrendChart points={costs.data.trend} />
          </ChartCard>
          <SimpleGrid cols={{ base: 1, md: 3 }}>
            <ChartCard title="Top orgs" testId="chart-top-orgs">
              <CostBars slices={costs.data.topOrgs} />
            </ChartCard>
            <ChartCard title="By Specialist" testId="chart-by-specialist">
              <CostBars slices={costs.data.bySpecialist} />
            </ChartCard>
            <ChartCard title="By purpose" testId="chart-by-purpose">
              <CostDonut slices={costs.data.byPurpose} />
            </ChartCard>
          </SimpleGrid>
        </>
      )}
    </Stack>
  );
}

function RecordPayment({ invoice, orgId }: { invoice: InvoiceDto; orgId: string }) {
  const queryClient = useQueryClient();
  const record = useMutation({
    mutationFn: (outcome: 'paid' | 'failed') => billingApi.recordPayment(invoice.id!, { outcome, reason: outcome === 'failed' ? 'Recorded as failed by the billing team' : undefined }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['billing'] }),
  });
  if (!invoice.id || invoice.status === 'paid') return null;
  return (
    <>
      <Button size="xs" color="green" variant="light" loading={record.isPending && record.variables === 'paid'} onClick={() => record.mutate('paid')}>
        Record paid
      </Button>
      {invoice.status !== 'payment_failed' && (
        <Button size="xs" color="red" variant="light" loading={record.isPending && record.variables === 'failed'} onClick={() => record.mutate('failed')}>
          Record failed
        </Button>
      )}
      <QueryAlert title={`Could not record the payment of ${orgId.slice(0, 8)}`} error={record.error} />
    </>
  );
}

function OrgBilling({ orgId }: { orgId: string }) {
  const [days, setDays] = useState('30');
  const range = rangeOf(days);
  const data = useQuery({ queryKey: billingKeys.opsOrg(orgId, range), queryFn: ({ signal }) => billingApi.opsOrg(orgId, range, signal) });
  if (data.isPending) return <SectionLoader label="Loading the org's billing" />;
  if (data.error) return <QueryAlert title="Could not load the org's billing" error={data.error} retry={() => void data.refetch()} />;
  const d = data.data;
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Group>
          <Title order={2} size="h3" data-testid="org-billing-name">
            {d.org.legalName}
          </Title>
          <PaymentStateBadge state={d.org.paymentState} />
        </Group>
        <Group>
          <RangePicker value={days} onChange={setDays} />
          <Anchor component={Link} to="/ops/billing">
            All orgs
          </Anchor>
        </Group>
      </Group>
      <Text size="sm">
        Monthly fees {formatCents(d.org.monthlyRunRateCents, d.org.currency)} for {d.org.specialistInstances} Specialist instance(s). Message quota: {d.quota.used} of {d.quota.limit} this hour. LLM
        cost in range: {formatUsd(d.totalMicroUsd)} (visible, never billed).
      </Text>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <ChartCard title="Messages per hour (48 hours)" testId="chart-hourly-usage">
          <UsageChart points={d.hourlyUsage} hourly />
        </ChartCard>
        <ChartCard title="Messages per day" testId="chart-daily-usage">
          <UsageChart points={d.dailyUsage} hourly={false} />
        </ChartCard>
        <ChartCard title="LLM cost per day" testId="chart-org-cost-trend">
          <CostTrendChart points={d.costTrend} />
        </ChartCard>
        <ChartCard title="LLM cost per Specialist" testId="chart-org-by-specialist">
          <CostBars slices={d.costBySpecialist} />
        </ChartCard>
      </SimpleGrid>
      <Title order={3} size="h4">
        Invoices
      </Title>
      <InvoiceList invoices={d.invoices} actions={(invoice) => <RecordPayment invoice={invoice} orgId={orgId} />} />
    </Stack>
  );
}

/**
 * `/ops/billing` (spec 8.1): payment states (superadmins and account managers) and the platform
 * LLM cost panels (superadmins); `/ops/billing?org=<id>`: one org's usage, cost and invoices.
 */
export function OpsBillingPage() {
  const user = useCurrentUser();
  const [params] = useSearchParams();
  const orgId = params.get('org');
  const superadmin = user.platformRole === 'superadmin';
  if (user.platformRole !== 'superadmin' && user.platformRole !== 'account_manager') {
    return (
      <Page title="Billing">
        <Alert color="blue" title="Not available to your role">
          Billing is for superadmins and account managers.
        </Alert>
      </Page>
    );
  }
  return (
    <Page title="Billing">
      {orgId && superadmin ? (
        <OrgBilling orgId={orgId} />
      ) : (
        <Stack gap="lg">
          <Stack gap="xs">
            <Title order={2} size="h3">
              Payment states
            </Title>
            <PaymentStates onlyOrg={orgId ?? undefined} />
          </Stack>
          {superadmin && <PlatformCosts />}
        </Stack>
      )}
    </Page>
  );
}
