import { z } from 'zod';

/** Platform roles of spec 2.7. `client_admin` / `client_member` are legacy: readable, never assigned. */
export const ASSIGNABLE_PLATFORM_ROLES = ['superadmin', 'account_manager', 'expert', 'ai_operator', 'org_admin', 'org_member'] as const;
export const LEGACY_PLATFORM_ROLES = ['client_admin', 'client_member'] as const;
export const PLATFORM_ROLES = [...ASSIGNABLE_PLATFORM_ROLES, ...LEGACY_PLATFORM_ROLES] as const;
export type PlatformRole = (typeof PLATFORM_ROLES)[number];
export const PlatformRoleSchema = z.enum(PLATFORM_ROLES);

export const AssignablePlatformRoleSchema = z.enum(ASSIGNABLE_PLATFORM_ROLES);

export const INTERNAL_ROLES = ['superadmin', 'account_manager', 'expert', 'ai_operator'] as const satisfies readonly PlatformRole[];
/**
 * Internal roles that act on every org (API-MAP.md "Conventions": account managers; superadmins
 * hold all powers; AI operators run the ops console). Experts reach orgs through their grants.
 */
export const ORG_WIDE_ROLES = ['superadmin', 'account_manager', 'ai_operator'] as const satisfies readonly PlatformRole[];

export const CLIENT_ROLES = ['org_admin', 'org_member', 'client_admin', 'client_member'] as const satisfies readonly PlatformRole[];

export function isInternalRole(role: PlatformRole): boolean {
  return (INTERNAL_ROLES as readonly PlatformRole[]).includes(role);
}

/** A client-side user (an org's admin or member, legacy roles included): every role that is not internal. */
export function isClientRole(role: PlatformRole): boolean {
  return (CLIENT_ROLES as readonly PlatformRole[]).includes(role);
}

export const ORG_ROLES = ['owner', 'admin', 'member', 'billing'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];
export const OrgRoleSchema = z.enum(ORG_ROLES);

export const USER_STATUSES = ['active', 'suspended', 'deactivated'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];
export const UserStatusSchema = z.enum(USER_STATUSES);

/** Role landing of spec 5.4 (ai_operator lands with the ops roles, API-MAP.md). */
export type Landing = '/ops/clients' | '/workspace/queue' | '/client/chat';
export function landingFor(role: PlatformRole): Landing {
  switch (role) {
    case 'superadmin':
    case 'account_manager':
    case 'ai_operator':
      return '/ops/clients';
    case 'expert':
      return '/workspace/queue';
    default:
      return '/client/chat';
  }
}
