import { List, Text } from '@mantine/core';
import type { OpsBillingOrg } from '@contracts';
import { formatCents } from './billing.api';

/** Amounts of one org, one per currency (never summed across currencies): "$1,200.00 + €900.00". */
export function amountsText(org: OpsBillingOrg, field: 'monthlyRunRateCents' | 'outstandingCents'): string {
  if (org.amounts.length === 0) return formatCents(0, org.currency);
  return org.amounts.map((a) => formatCents(a[field], a.currency)).join(' + ');
}

const SKIP_REASON_LABELS: Record<OpsBillingOrg['skipped'][number]['reason'], string> = { no_rate: 'no rate' };

/** The org's Specialist instances that billing skips (no invoice line, no charge), with the reason. */
export function SkippedInstances({ org }: { org: OpsBillingOrg }) {
  if (org.skipped.length === 0) return null;
  return (
    <List size="xs" c="orange" data-testid="skipped-instances" aria-label={`Not billed at ${org.legalName}`}>
      {org.skipped.map((s) => (
        <List.Item key={s.assignmentId} data-testid="skipped-instance">
          <Text span size="xs">
            Not billed: {s.specialistName} ({SKIP_REASON_LABELS[s.reason]})
          </Text>
        </List.Item>
      ))}
    </List>
  );
}
