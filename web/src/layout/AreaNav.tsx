import { NavLink, Stack } from '@mantine/core';
import type { PlatformRole } from '@contracts';
import { Link, useLocation } from 'react-router';
import { useCurrentUser } from '../auth/current-user';
import { CLIENT_ROLES, OPS_ROLES, WORKSPACE_ONLY_ROLES, WORKSPACE_ROLES } from '../auth/roles';

export interface NavItem {
  path: string;
  label: string;
  roles: readonly PlatformRole[];
}

/** Every page of the navigation, in order; each user sees the ones of their role. */
export const AREAS: readonly NavItem[] = [
  { path: '/ops/clients', label: 'Clients', roles: OPS_ROLES },
  { path: '/ops/specialists', label: 'Specialists', roles: ['superadmin'] },
  { path: '/ops/channels', label: 'Quarantine', roles: OPS_ROLES },
  { path: '/ops/billing', label: 'Billing', roles: ['superadmin', 'account_manager'] },
  { path: '/ops/analytics', label: 'Analytics', roles: ['superadmin'] },
  { path: '/ops/users', label: 'Users', roles: ['superadmin'] },
  { path: '/ops/audit', label: 'Audit log', roles: ['superadmin'] },
  { path: '/ops/impersonation', label: 'Impersonation', roles: ['superadmin'] },
  { path: '/workspace/queue', label: 'Attention list', roles: WORKSPACE_ROLES },
  { path: '/ops/notifications', label: 'Notifications', roles: OPS_ROLES },
  { path: '/workspace/notifications', label: 'Notifications', roles: WORKSPACE_ONLY_ROLES },
  { path: '/ops/profile', label: 'Profile', roles: OPS_ROLES },
  { path: '/workspace/profile', label: 'Profile', roles: WORKSPACE_ONLY_ROLES },
  { path: '/client/chat', label: 'Chat', roles: CLIENT_ROLES },
  { path: '/client/inbox', label: 'Notifications', roles: CLIENT_ROLES },
  { path: '/client/settings', label: 'Settings', roles: CLIENT_ROLES },
];

export function navItemsFor(role: PlatformRole): NavItem[] {
  return AREAS.filter((item) => item.roles.includes(role));
}

const isCurrent = (pathname: string, path: string) => pathname === path || pathname.startsWith(`${path}/`);

/** The pages the signed-in user may open, as a list of links (inside the shell's navigation landmark). */
export function AreaNav({ onNavigate }: { onNavigate?: () => void }) {
  const user = useCurrentUser();
  const { pathname } = useLocation();
  return (
    <Stack gap={2} data-testid="area-nav">
      {navItemsFor(user.platformRole).map((item) => {
        const current = isCurrent(pathname, item.path);
        return <NavLink key={item.path} component={Link} to={item.path} label={item.label} active={current} aria-current={current ? 'page' : undefined} onClick={onNavigate} />;
      })}
    </Stack>
  );
}
