import type { OrgRole, PlatformRole } from '../../contracts/roles.js';
import type { PrincipalMembership } from '../../platform/auth/principal.js';

export type BriefAccess = 'none' | 'read' | 'edit';

const EDITING_ORG_ROLES: readonly OrgRole[] = ['owner', 'admin'];
const EDITING_PLATFORM_ROLES: readonly PlatformRole[] = ['superadmin', 'account_manager'];
/** Internal roles that read every org's briefs (the ops console). */
const READING_PLATFORM_ROLES: readonly PlatformRole[] = ['ai_operator'];

const rank: Record<BriefAccess, number> = { none: 0, read: 1, edit: 2 };
const best = (a: BriefAccess, b: BriefAccess): BriefAccess => (rank[a] >= rank[b] ? a : b);

/**
 * What a caller may do with the briefs of one org: edited by the org's owners and admins and by
 * account managers and superadmins; read by every member of the org, AI operators, and Experts
 * whose grants cover the org. Everyone else gets nothing (and a 404: the org is not revealed).
 */
export function briefAccess(caller: { platformRole: PlatformRole; orgMemberships: readonly PrincipalMembership[] }, orgId: string, expertCoversOrg: boolean): BriefAccess {
  let access: BriefAccess = 'none';
  const membership = caller.orgMemberships.find((m) => m.orgId === orgId);
  if (membership) access = EDITING_ORG_ROLES.includes(membership.orgRole) ? 'edit' : 'read';
  if (EDITING_PLATFORM_ROLES.includes(caller.platformRole)) access = best(access, 'edit');
  if (READING_PLATFORM_ROLES.includes(caller.platformRole)) access = best(access, 'read');
  if (caller.platformRole === 'expert' && expertCoversOrg) access = best(access, 'read');
  return access;
}
