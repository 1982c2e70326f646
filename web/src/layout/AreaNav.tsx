import { Button, Group } from '@mantine/core';
import type { PlatformRole } from '@contracts';
import { Link, useLocation } from 'react-router';
import { useCurrentUser } from '../auth/current-user';
import { CLIENT_ROLES, OPS_ROLES, WORKSPACE_ROLES } from '../auth/roles';

const AREAS: readonly { path: string; label: string; roles: readonly PlatformRole[] }[] = [
  { path: '/ops/clients', label: 'Clients', roles: OPS_ROLES },
  { path: '/ops/channels', label: 'Quarantine', roles: OPS_ROLES },
  { path: '/ops/billing', label: 'Billing', roles: ['superadmin', 'account_manager'] },
  { path: '/ops/analytics', label: 'Analytics', roles: ['superadmin'] },
  { path: '/ops/users', label: 'Users', roles: ['superadmin'] },
  { path: '/ops/audit', label: 'Audit log', roles: ['superadmin'] },
  { path: '/ops/impersonation', label: 'Impersonation', roles: ['superadmin'] },
  { path: '/workspace/queue', label: 'Attention list', roles: WORKSPACE_ROLES },
  { path: '/ops/profile', label: 'Profile', roles: OPS_ROLES },
  { path: '/client/chat', label: 'Chat', roles: CLIENT_ROLES },
  { path: '/client/settings', label: 'Settings', roles: CLIENT_ROLES },
];

/** Links between the signed-in areas and pages, for a user who may open more than one. */
export function AreaNav() {
  const user = useCurrentUser();
  const { pathname } = useLocation();
  const areas = AREAS.filter((area) => area.roles.includes(user.platformRole));
  if (areas.length < 2) return null;
  return (
    <Group component="nav" gap={4} aria-label="Areas" wrap="nowrap">
      {areas.map((area) => (
        <Button key={area.path} component={Link} to={area.path} size="xs" variant={pathname.startsWith(area.path) ? 'light' : 'subtle'}>
          {area.label}
        </Button>
      ))}
    </Group>
  );
}
