import type { OrgStatus } from '@contracts';
import { Badge } from '@mantine/core';
import { ORG_STATUS_COLORS, ORG_STATUS_LABELS } from './org-status';

export function OrgStatusBadge({ status }: { status: OrgStatus }) {
  return (
    <Badge color={ORG_STATUS_COLORS[status]} variant="light" data-testid="org-status" data-status={status}>
      {ORG_STATUS_LABELS[status]}
    </Badge>
  );
}
