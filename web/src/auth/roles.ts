import { CLIENT_ROLES, isClientRole, PLATFORM_ROLES, type PlatformRole } from '@contracts';

/** Who may open each area of the web app (spec 5.4); everyone else is sent to their own landing. */
export const OPS_ROLES = ['superadmin', 'account_manager', 'ai_operator'] as const satisfies readonly PlatformRole[];
/** The attention list is the Expert's landing; AMs and SuperAdmins may open it too (spec 4.4). */
export const WORKSPACE_ROLES = ['expert', 'account_manager', 'superadmin'] as const satisfies readonly PlatformRole[];
export { CLIENT_ROLES, isClientRole };
/** Roles whose only area is the workspace (Experts): their profile and notifications live there too. */
export const WORKSPACE_ONLY_ROLES: readonly PlatformRole[] = WORKSPACE_ROLES.filter((role) => !(OPS_ROLES as readonly PlatformRole[]).includes(role));

const ROLE_LABELS: Record<PlatformRole, string> = {
  superadmin: 'SuperAdmin',
  account_manager: 'Account manager',
  expert: 'Expert',
  ai_operator: 'AI operator',
  org_admin: 'Organization admin',
  org_member: 'Organization member',
  client_admin: 'Client admin (legacy)',
  client_member: 'Client member (legacy)',
};

export function roleLabel(role: PlatformRole): string {
  return ROLE_LABELS[role];
}

/** A role named by a plain string (the demo accounts list): its label, or the string when it is no role. */
export function roleLabelOf(role: string): string {
  return (PLATFORM_ROLES as readonly string[]).includes(role) ? roleLabel(role as PlatformRole) : role;
}
