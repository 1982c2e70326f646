import { ADMIN_MESSAGES, revokesSessions } from '../../contracts/admin.js';
import type { PlatformRole } from '../../contracts/roles.js';

/** A refusal of spec 7.2: the error code of API-MAP.md "Conventions" and the spec's message. */
export interface Refusal {
  code: 'forbidden' | 'conflict' | 'bad_request';
  message: string;
}

export interface EditableUser {
  id: string;
  name: string;
  email: string;
  platformRole: PlatformRole;
  status: string;
}

export interface RequestedChanges {
  name?: string;
  email?: string;
  platformRole?: PlatformRole;
  status?: string;
}

/** The fields of a request that differ from the user's current values; the rest is no change. */
export function changedFields<T extends RequestedChanges>(current: EditableUser, requested: T): Partial<T> {
  const changes: Partial<T> = {};
  for (const key of ['name', 'email', 'platformRole', 'status'] as const) {
    const value = requested[key];
    if (value !== undefined && value !== current[key]) (changes as Record<string, unknown>)[key] = value;
  }
  return changes;
}

export interface EditCheck {
  actorId: string;
  target: Pick<EditableUser, 'id' | 'platformRole' | 'status'>;
  /** Only the fields that change (see changedFields). */
  changes: Pick<RequestedChanges, 'platformRole' | 'status'>;
  /** SuperAdmins other than the target: of any status, and active ones. */
  otherSuperadmins: number;
  otherActiveSuperadmins: number;
}

const leavesActive = (status: string | undefined) => status === 'suspended' || status === 'deactivated';

/**
 * Spec 3.5, 4.7 and 7.2 for an edit of role or status: never your own role, never your own
 * suspension; never the last SuperAdmin demoted or the last active one suspended. Self rules
 * come first: they are the reason a user can act on.
 *
 * A demotion is refused whenever no other *active* SuperAdmin would remain, which covers the
 * spec's "only remaining SuperAdmin" and also the case where the others are all suspended or
 * deactivated: nobody could reactivate them, and bootstrap is closed once a SuperAdmin exists.
 */
export function editRefusal(c: EditCheck): Refusal | null {
  const self = c.actorId === c.target.id;
  if (self && c.changes.platformRole !== undefined) return { code: 'forbidden', message: ADMIN_MESSAGES.ownRole };
  if (self && leavesActive(c.changes.status)) return { code: 'forbidden', message: ADMIN_MESSAGES.ownStatus };
  if (c.target.platformRole !== 'superadmin') return null;
  if (c.changes.platformRole !== undefined && c.changes.platformRole !== 'superadmin' && (c.otherSuperadmins === 0 || c.otherActiveSuperadmins === 0)) {
    return { code: 'conflict', message: ADMIN_MESSAGES.onlySuperadmin };
  }
  if (c.target.status === 'active' && leavesActive(c.changes.status) && c.otherActiveSuperadmins === 0) {
    return { code: 'conflict', message: ADMIN_MESSAGES.onlyActiveSuperadmin };
  }
  return null;
}

/**
 * Removing a user deactivates them (anonymised) or deletes the row (hard): the same rules as
 * deactivating, and a hard delete of the last SuperAdmin is a demotion too.
 */
export function removalRefusal(c: Omit<EditCheck, 'changes'> & { hard: boolean }): Refusal | null {
  const asDeactivation = editRefusal({ ...c, changes: { status: 'deactivated' } });
  if (asDeactivation) return asDeactivation;
  if (c.hard && c.target.platformRole === 'superadmin' && (c.otherSuperadmins === 0 || c.otherActiveSuperadmins === 0)) {
    return { code: 'conflict', message: ADMIN_MESSAGES.onlySuperadmin };
  }
  return null;
}

/** Spec 7.2 read literally (API-MAP.md "Administration"): only an active user gets a reset code. */
export function resetRefusal(target: { status: string }): Refusal | null {
  return target.status === 'active' ? null : { code: 'bad_request', message: ADMIN_MESSAGES.resetNonActive };
}

export const RESET_LIMIT = 5;
export const RESET_WINDOW_MS = 60 * 60_000;

/**
 * Spec 8: at most 5 reset initiations per actor per hour, counted from the audit rows of the
 * last hour. When refused, the window frees up an hour after the oldest of them.
 */
export function resetLimit(initiationsInWindow: { count: number; oldestAt: Date | null }, now: Date): { allowed: true } | { allowed: false; resetAtMs: number } {
  if (initiationsInWindow.count < RESET_LIMIT) return { allowed: true };
  const oldest = initiationsInWindow.oldestAt?.getTime() ?? now.getTime();
  return { allowed: false, resetAtMs: Math.max(oldest + RESET_WINDOW_MS, now.getTime() + 1000) };
}

/** Spec 5.8: SuperAdmins are never impersonated; a session as a user who cannot sign in is pointless. */
export function impersonationRefusal(target: { platformRole: PlatformRole; status: string }): Refusal | null {
  if (target.platformRole === 'superadmin') return { code: 'forbidden', message: ADMIN_MESSAGES.impersonateSuperadmin };
  if (target.status !== 'active') return { code: 'conflict', message: 'Only an active user can be impersonated' };
  return null;
}

export type FieldDiff = Record<string, { from: unknown; to: unknown }>;

/**
 * The audit payload of spec 6.3: each changed field from/to, and a passwordChangedAt entry
 * whose `to` is 'revoked' when the edit ended the target's sessions.
 */
export function auditDiff(current: EditableUser & { passwordChangedAt: Date }, changes: RequestedChanges): { changes: FieldDiff; sessionsRevoked: boolean } {
  const diff: FieldDiff = {};
  for (const [key, to] of Object.entries(changes)) {
    if (to !== undefined) diff[key] = { from: current[key as keyof RequestedChanges], to };
  }
  const sessionsRevoked = revokesSessions(changes);
  if (sessionsRevoked) diff.passwordChangedAt = { from: current.passwordChangedAt.toISOString(), to: 'revoked' };
  return { changes: diff, sessionsRevoked };
}
