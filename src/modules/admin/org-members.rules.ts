import type { OrgRole } from '../../contracts/roles.js';
import type { Refusal } from './admin-users.rules.js';

export const MEMBER_MESSAGES = {
  notAllowed: 'Your organization role does not allow this',
  ownerByTransfer: 'Ownership moves only through transfer-ownership',
  ownerByOwner: 'Only an owner can change or remove an owner',
  keepOneOwner: 'An organization must keep at least one owner',
  selfTransfer: 'You already own this organization',
  // One answer for a member and for an open invitation: a second invite tells nothing about the address.
  alreadyMember: 'Already a member of this organization, or invited to it',
  tooManyInvites: 'Too many invitations for this organization',
  acceptedByUser: 'Only the invited user can accept an invitation, not while impersonating',
  internalUser: 'Internal users do not join organizations',
  invitationUsed: 'This invitation has already been accepted',
  invitationExpired: 'This invitation has expired; ask for a new one',
} as const;

/** Member invitations (spec 4.6): at most this many per org and hour; a mailed invitation is valid this long. */
export const INVITES_PER_ORG_PER_HOUR = 20;
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

/** The caller's standing in the org: an org role, or 'staff' for a SuperAdmin acting on any org. */
export type ActorStanding = OrgRole | 'staff';

const manages = (actor: ActorStanding) => actor === 'owner' || actor === 'admin' || actor === 'staff';
const forbidden = (message: string): Refusal => ({ code: 'forbidden', message });

/** Spec 4.6: admins and owners invite, up to Admin level; owners are made only by a transfer. */
export function inviteRefusal(c: { actor: ActorStanding; orgRole: OrgRole }): Refusal | null {
  if (!manages(c.actor)) return forbidden(MEMBER_MESSAGES.notAllowed);
  if (c.orgRole === 'owner') return forbidden(MEMBER_MESSAGES.ownerByTransfer);
  return null;
}

/**
 * Spec 4.6: an admin or owner sets roles up to Admin; an owner's role is touched by an owner
 * only, and never so that the org has no owner left.
 */
export function roleChangeRefusal(c: { actor: ActorStanding; targetRole: OrgRole; newRole: OrgRole; owners: number }): Refusal | null {
  if (!manages(c.actor)) return forbidden(MEMBER_MESSAGES.notAllowed);
  if (c.newRole === 'owner' && c.targetRole !== 'owner') return forbidden(MEMBER_MESSAGES.ownerByTransfer);
  if (c.targetRole === 'owner' && c.newRole !== 'owner') return ownerLeaving(c);
  return null;
}

/** Removing a member: the same owner rules as a role change. */
export function removalRefusal(c: { actor: ActorStanding; targetRole: OrgRole; owners: number }): Refusal | null {
  if (!manages(c.actor)) return forbidden(MEMBER_MESSAGES.notAllowed);
  if (c.targetRole === 'owner') return ownerLeaving(c);
  return null;
}

/** Transfer-ownership: to another member of the org (the owner becomes an admin). */
export function transferRefusal(c: { actorId: string; newOwnerId: string }): Refusal | null {
  return c.actorId === c.newOwnerId ? { code: 'bad_request', message: MEMBER_MESSAGES.selfTransfer } : null;
}

function ownerLeaving(c: { actor: ActorStanding; owners: number }): Refusal | null {
  if (c.actor !== 'owner' && c.actor !== 'staff') return forbidden(MEMBER_MESSAGES.ownerByOwner);
  if (c.owners <= 1) return { code: 'conflict', message: MEMBER_MESSAGES.keepOneOwner };
  return null;
}
