import { Badge } from '@mantine/core';

const COLORS: Record<string, string> = { active: 'green', suspended: 'yellow', deactivated: 'gray' };

/** A user's status (spec 3.5); a value outside the three is shown as it is. */
export function UserStatusBadge({ status }: { status: string }) {
  return (
    <Badge color={COLORS[status] ?? 'grape'} variant={COLORS[status] ? 'light' : 'outline'} data-testid="user-status">
      {status}
    </Badge>
  );
}
