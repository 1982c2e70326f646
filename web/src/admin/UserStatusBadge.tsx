import { Badge } from '@mantine/core';

const COLORS: Record<string, string> = { active: 'green', suspended: 'yellow', deactivated: 'gray' };
export const STATUS_LABELS: Record<string, string> = { active: 'Active', suspended: 'Suspended', deactivated: 'Deactivated' };

/** A user's status (spec 3.5); a value outside the three is shown as it is. */
export function UserStatusBadge({ status }: { status: string }) {
  return (
    <Badge color={COLORS[status] ?? 'grape'} variant={COLORS[status] ? 'light' : 'outline'} data-testid="user-status" style={{ textTransform: 'none' }}>
      {STATUS_LABELS[status] ?? status}
    </Badge>
  );
}
