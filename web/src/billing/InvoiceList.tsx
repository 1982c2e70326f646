import { Accordion, Badge, Group, Table, Text } from '@mantine/core';
import type { InvoiceDto } from '@contracts';
import type { ReactNode } from 'react';
import { formatDate } from '../ops/format';
import { INVOICE_STATUS_LABELS, PAYMENT_STATE_LABELS, formatCents, formatPeriod } from './billing.api';

export function PaymentStateBadge({ state }: { state: keyof typeof PAYMENT_STATE_LABELS }) {
  const s = PAYMENT_STATE_LABELS[state];
  return (
    <Badge color={s.color} variant="light" data-testid="payment-state">
      {s.label}
    </Badge>
  );
}

/** How a rate period's source reads: staff see the precise term, clients plain words. */
const SOURCE_WORDS = {
  staff: { override: 'override', specialist: 'catalog' },
  client: { override: 'agreed rate', specialist: 'standard rate' },
} as const;

export type InvoiceAudience = keyof typeof SOURCE_WORDS;

/** One invoice's lines: one per Specialist instance, with its rate periods when the rate changed. */
function InvoiceLines({ invoice, audience }: { invoice: InvoiceDto; audience: InvoiceAudience }) {
  return (
    <Table.ScrollContainer minWidth={560} type="native" tabIndex={0}>
      <Table striped withTableBorder fz="sm" aria-label={`Lines of ${formatPeriod(invoice.period)} in ${invoice.currency}`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Specialist</Table.Th>
            <Table.Th>Days</Table.Th>
            <Table.Th>Rate periods</Table.Th>
            <Table.Th ta="right">Amount</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {invoice.lines.map((line) => (
            <Table.Tr key={line.assignmentId} data-testid="invoice-line">
              <Table.Td>{line.description}</Table.Td>
              <Table.Td>
                {line.daysActive} / {line.daysInMonth}
              </Table.Td>
              <Table.Td>
                {line.periods.map((p) => (
                  <Text key={p.from} size="xs">
                    {formatDate(p.from)} to {formatDate(p.to)}: {p.days} days at {formatCents(p.monthlyRateCents, line.currency)} / month ({SOURCE_WORDS[audience][p.source]}) ={' '}
                    {formatCents(p.amountCents, line.currency)}
                  </Text>
                ))}
              </Table.Td>
              <Table.Td ta="right">{formatCents(line.amountCents, line.currency)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/**
 * Invoices newest first (one per month and currency), each opening to its lines; `actions` renders
 * per-invoice controls (ops). The header wraps on a narrow screen; the lines scroll inside.
 */
export function InvoiceList({ invoices, actions, audience = 'staff' }: { invoices: InvoiceDto[]; actions?: (invoice: InvoiceDto) => ReactNode; audience?: InvoiceAudience }) {
  if (invoices.length === 0) return <Text c="dimmed">No invoices yet.</Text>;
  return (
    <Accordion variant="separated" multiple data-testid="invoice-list">
      {invoices.map((invoice) => {
        const status = INVOICE_STATUS_LABELS[invoice.status];
        const key = invoice.id ?? `upcoming-${invoice.period}-${invoice.currency}`;
        return (
          <Accordion.Item key={key} value={key} data-testid="invoice">
            <Accordion.Control>
              <Group justify="space-between" wrap="wrap" gap="xs" pr="md">
                <Text fw={600} data-testid="invoice-month">
                  {formatPeriod(invoice.period)}
                </Text>
                <Badge color="gray" variant="outline" data-testid="invoice-currency">
                  {invoice.currency}
                </Badge>
                <Badge color={status.color} variant="light">
                  {status.label}
                </Badge>
                <Text size="sm" c="dimmed">
                  {invoice.dueOn ? `Due ${formatDate(invoice.dueOn)}` : ''}
                </Text>
                <Text fw={600} data-testid="invoice-total">
                  {formatCents(invoice.totalCents, invoice.currency)}
                </Text>
              </Group>
            </Accordion.Control>
            <Accordion.Panel>
              {invoice.failureReason && (
                <Text size="sm" c="red" mb="xs">
                  Payment failed: {invoice.failureReason}
                </Text>
              )}
              <InvoiceLines invoice={invoice} audience={audience} />
              {actions && <Group mt="sm">{actions(invoice)}</Group>}
            </Accordion.Panel>
          </Accordion.Item>
        );
      })}
    </Accordion>
  );
}
