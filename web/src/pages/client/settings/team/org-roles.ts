import type { OrgRole } from '@contracts';

export const ORG_ROLE_LABELS: Record<OrgRole, string> = { owner: 'Owner', admin: 'Admin', member: 'Member', billing: 'Billing' };

/** Spec 4.6: admins and owners manage members; only an owner touches an owner or transfers ownership. */
export function canManageMembers(role: OrgRole | undefined): boolean {
  return role === 'owner' || role === 'admin';
}
