import { Alert, Anchor, Button, Card, Group, Select, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import type { InvoiceDto, OpsBillingOrg } from '@contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useCurrentUser } from '../../../auth/current-user';
import { PAYMENT_STATE_LABELS, billingApi, billingKeys, formatPeriod, formatUsd } from '../../../billing/billing.api';
import { ChartCard, CostBars, CostDonut, CostTrendChart, RangePicker, UsageChart, rangeOf, useRangeParam } from '../../../billing/charts';
import { InvoiceList, PaymentStateBadge } from '../../../billing/InvoiceList';
import { SkippedInstances, amountsText } from '../../../billing/OrgAmounts';
import { Page } from '../../../layout/Page';
import { toast } from '../../../layout/toast';
import { ConfirmDialog } from '../../../layout/ConfirmDialog';
import { formatDate, formatDateTime } from '../../../ops/format';
import { OrgStatusBadge } from '../../../ops/OrgStatusBadge';
import { useUrlParams } from '../../../ops/url-state';
import { LoadMore, useCursorList } from '../../../admin/paging';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import { OrgAutonomousHandling } from '../analytics/AutonomousHandling';

type PaymentFilter = OpsBillingOrg['paymentState'];
const PAYMENT_FILTERS: Array<{ value: PaymentFilter; label: string }> = (Object.keys(PAYMENT_STATE_LABELS) as PaymentFilter[]).map((value) => ({ value, label: PAYMENT_STATE_LABELS[value].label }));

function PaymentStates({ onlyOrg }: { onlyOrg?: string }) {
  const [param, setParams] = useUrlParams<'payment'>();
  const raw = param('payment');
  const payment = PAYMENT_FILTERS.some((f) => f.value === raw) ? (raw as PaymentFilter) : null;
  const filter = { payment: payment ?? undefined, orgId: onlyOrg };
  const { query: orgs, items: rows } = useCursorList(billingKeys.opsOrgs(filter), (cursor, signal) => billingApi.opsOrgs(filter, cursor, signal));
  if (orgs.isPending) return <SectionLoader label="Loading payment states" />;
  if (orgs.error) return <QueryAlert title="Could not load payment states" error={orgs.error} retry={() => void orgs.refetch()} />;
  return (
    <Stack gap="sm">
      <Select label="Payment" placeholder="Every payment state" data={PAYMENT_FILTERS} value={payment} onChange={(value) => setParams({ payment: value })} clearable maw={280} />
      {rows.length === 0 ? (
        <Text c="dimmed" data-testid="payment-states-empty">
          {payment ? 'No org is in this payment state.' : 'No active org yet.'}
        </Text>
      ) : (
        <Card withBorder padding={0}>
          <Table.ScrollContainer minWidth={820} type="native" tabIndex={0}>
            <Table striped highlightOnHover aria-label="Payment states" data-testid="payment-states">
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
                    <Table.Td>
                      <OrgStatusBadge status={o.orgStatus} />
                    </Table.Td>
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
                      {amountsText(o, 'monthlyRunRateCents')} ({o.specialistInstances} Specialist{o.specialistInstances === 1 ? '' : 's'})
                      <SkippedInstances org={o} />
                    </Table.Td>
                    <Table.Td ta="right">
                      {amountsText(o, 'outstandingCents')} ({o.openInvoices} open)
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      <LoadMore query={orgs} />
    </Stack>
  );
}

function PlatformCosts() {
  const [days, setDays] = useRangeParam();
  const range = rangeOf(days);
  const costs = useQuery({ queryKey: billingKeys.platformCosts(range), queryFn: ({ signal }) => billingApi.platformCosts(range, signal) });
  return (
    <Stack gap="sm">
      <Group justify="space-between" wrap="wrap">
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
            {formatUsd(costs.data.totalMicroUsd)} from {formatDate(costs.data.from)} to {formatDate(costs.data.to)}, from the cost ledger (never invoiced).
          </Text>
          {costs.data.reconciliation && (
            <Alert color={costs.data.reconciliation.alerted ? 'orange' : 'gray'} title={`Reconciliation of ${formatDate(costs.data.reconciliation.day)}`} data-testid="reconciliation">
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

const RECORDED: Record<'paid' | 'failed', string> = {
  paid: 'Payment recorded: the invoice is paid.',
  failed: 'Failed payment recorded: the grace period has started and the org is notified.',
};

function RecordPayment({ invoice }: { invoice: InvoiceDto }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const record = useMutation({
    mutationFn: (outcome: 'paid' | 'failed') => billingApi.recordPayment(invoice.id!, { outcome, reason: outcome === 'failed' ? 'Recorded as failed by the billing team' : undefined }),
    onSuccess: async (_, outcome) => {
      setConfirming(false);
      toast.success(RECORDED[outcome]);
      await queryClient.invalidateQueries({ queryKey: ['billing'] });
    },
  });
  if (!invoice.id || invoice.status === 'paid') return null;
  const month = formatPeriod(invoice.period);
  return (
    <>
      <Button size="xs" color="green" variant="light" loading={record.isPending && record.variables === 'paid'} onClick={() => record.mutate('paid')}>
        Record paid
      </Button>
      {invoice.status !== 'payment_failed' && (
        <Button size="xs" color="red" variant="light" onClick={() => setConfirming(true)}>
          Record failed
        </Button>
      )}
      <ConfirmDialog
        opened={confirming}
        title={`Record the ${month} invoice as failed?`}
        confirmLabel="Record failed"
        loading={record.isPending}
        error={record.variables === 'failed' ? record.error : null}
        onConfirm={() => record.mutate('failed')}
        onCancel={() => setConfirming(false)}
      >
        <Text size="sm">
          The org's grace period starts now: its owners, admins, billing members and account manager are notified, and the org is suspended when the grace period ends unless the invoice is paid.
        </Text>
      </ConfirmDialog>
      {!confirming && <QueryAlert title={`Could not record the payment of the ${month} invoice`} error={record.error} />}
    </>
  );
}

function OrgBilling({ orgId }: { orgId: string }) {
  const [days, setDays] = useRangeParam();
  const range = rangeOf(days);
  const data = useQuery({ queryKey: billingKeys.opsOrg(orgId, range), queryFn: ({ signal }) => billingApi.opsOrg(orgId, range, signal) });
  if (data.isPending) return <SectionLoader label="Loading the org's billing" />;
  if (data.error) return <QueryAlert title="Could not load the org's billing" error={data.error} retry={() => void data.refetch()} />;
  const d = data.data;
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Group wrap="wrap">
          <Title order={2} size="h3" data-testid="org-billing-name">
            {d.org.legalName}
          </Title>
          <PaymentStateBadge state={d.org.paymentState} />
        </Group>
        <Group wrap="wrap">
          <RangePicker value={days} onChange={setDays} />
          <Anchor component={Link} to="/ops/billing">
            All orgs
          </Anchor>
        </Group>
      </Group>
      <Text size="sm">
        Monthly fees {amountsText(d.org, 'monthlyRunRateCents')} for {d.org.specialistInstances} Specialist instance(s). Message quota: {d.quota.used} of {d.quota.limit} this hour. LLM cost in range:{' '}
        {formatUsd(d.totalMicroUsd)} (visible, never billed).
      </Text>
      <SkippedInstances org={d.org} />
      <OrgAutonomousHandling handling={d.autonomousHandling} />
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
      <InvoiceList invoices={d.invoices} actions={(invoice) => <RecordPayment invoice={invoice} />} />
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
