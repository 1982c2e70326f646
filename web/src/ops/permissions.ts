import type { PlatformRole } from '@contracts';

/** Spec 5.1: who drives the setup wizard, assigns Specialists, grants coverage and runs mailboxes. */
export const CLIENT_SETUP_ROLES = ['account_manager', 'superadmin'] as const satisfies readonly PlatformRole[];

export function canSetUpClients(role: PlatformRole): boolean {
  return (CLIENT_SETUP_ROLES as readonly PlatformRole[]).includes(role);
}
