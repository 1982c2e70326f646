import { Card, Stack, Table, Text, Title } from '@mantine/core';
import type { OrgBillingDto } from '@contracts';
import { formatCents } from '../../../../billing/billing.api';
import { formatDate } from '../../../../ops/format';

/** The monthly fees of the Specialists, summed per currency (never across currencies). */
function monthlyTotals(specialists: OrgBillingDto['specialists']): string {
  const totals = new Map<string, number>();
  for (const s of specialists) if (s.monthlyRateCents !== null && s.currency) totals.set(s.currency, (totals.get(s.currency) ?? 0) + s.monthlyRateCents);
  return [...totals].map(([currency, cents]) => formatCents(cents, currency)).join(' + ');
}

function billedFromText(day: string | null): string {
  if (!day) return 'When your organization is active';
  return formatDate(day);
}

/** What the org pays for: each Specialist with its monthly fee, and the monthly total. */
export function BilledSpecialists({ billing }: { billing: OrgBillingDto }) {
  const specialists = billing.specialists;
  const total = monthlyTotals(specialists);
  return (
    <Card withBorder component="section" aria-labelledby="billed-specialists-title" data-testid="billed-specialists">
      <Stack gap="xs">
        <Title order={2} size="h3" id="billed-specialists-title">
          Your Specialists
        </Title>
        <Text size="sm" c="dimmed">
          You pay a flat monthly fee per Specialist, prorated by the day when a Specialist starts, stops or changes rate during a month. Messages, conversations and AI usage are never billed.
        </Text>
        {specialists.length === 0 ? (
          <Text c="dimmed">No Specialist is assigned to your organization, so nothing is billed.</Text>
        ) : (
          <Table.ScrollContainer minWidth={420} type="native" tabIndex={0}>
            <Table verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Specialist</Table.Th>
                  <Table.Th ta="right">Monthly fee</Table.Th>
                  <Table.Th>Billed from</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {specialists.map((s) => (
                  <Table.Tr key={s.assignmentId} data-testid="billed-specialist">
                    <Table.Td data-testid="billed-specialist-name">{s.name}</Table.Td>
                    <Table.Td ta="right" data-testid="billed-specialist-rate" style={{ whiteSpace: 'nowrap' }}>
                      {s.monthlyRateCents !== null && s.currency ? `${formatCents(s.monthlyRateCents, s.currency)} / month (${s.currency})` : 'Not billed'}
                    </Table.Td>
                    <Table.Td>{billedFromText(s.billedFrom)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
              {total && (
                <Table.Tfoot>
                  <Table.Tr>
                    <Table.Th>Total per month</Table.Th>
                    <Table.Th ta="right" data-testid="billed-total" style={{ whiteSpace: 'nowrap' }}>
                      {total}
                    </Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Tfoot>
              )}
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
    </Card>
  );
}
