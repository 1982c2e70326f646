import { describe, expect, it } from 'vitest';
import { ORG_ROLES } from '../../contracts/roles.js';
import { MEMBER_MESSAGES, inviteRefusal, removalRefusal, roleChangeRefusal, transferRefusal, type ActorStanding } from './org-members.rules.js';

const MANAGERS: ActorStanding[] = ['owner', 'admin', 'staff'];

describe('org member rules (spec 4.6)', () => {
  it('lets only admins, owners (and SuperAdmins) invite, change roles and remove', () => {
    for (const actor of ['member', 'billing'] as const) {
      expect(inviteRefusal({ actor, orgRole: 'member' })?.message).toBe(MEMBER_MESSAGES.notAllowed);
      expect(roleChangeRefusal({ actor, targetRole: 'member', newRole: 'billing', owners: 1 })?.code).toBe('forbidden');
      expect(removalRefusal({ actor, targetRole: 'member', owners: 1 })?.code).toBe('forbidden');
    }
  });

  it('grants every role up to Admin, never Owner (ownership moves by transfer)', () => {
    for (const actor of MANAGERS) {
      for (const role of ['admin', 'member', 'billing'] as const) {
        expect(inviteRefusal({ actor, orgRole: role })).toBeNull();
        for (const from of ['admin', 'member', 'billing'] as const) expect(roleChangeRefusal({ actor, targetRole: from, newRole: role, owners: 1 })).toBeNull();
      }
      expect(inviteRefusal({ actor, orgRole: 'owner' })).toEqual({ code: 'forbidden', message: MEMBER_MESSAGES.ownerByTransfer });
      expect(roleChangeRefusal({ actor, targetRole: 'admin', newRole: 'owner', owners: 1 })).toEqual({ code: 'forbidden', message: MEMBER_MESSAGES.ownerByTransfer });
    }
  });

  it('lets only an owner touch an owner, and keeps at least one owner', () => {
    expect(roleChangeRefusal({ actor: 'admin', targetRole: 'owner', newRole: 'admin', owners: 2 })).toEqual({ code: 'forbidden', message: MEMBER_MESSAGES.ownerByOwner });
    expect(removalRefusal({ actor: 'admin', targetRole: 'owner', owners: 2 })?.message).toBe(MEMBER_MESSAGES.ownerByOwner);
    for (const actor of ['owner', 'staff'] as const) {
      expect(roleChangeRefusal({ actor, targetRole: 'owner', newRole: 'admin', owners: 2 })).toBeNull();
      expect(roleChangeRefusal({ actor, targetRole: 'owner', newRole: 'member', owners: 1 })).toEqual({ code: 'conflict', message: MEMBER_MESSAGES.keepOneOwner });
      expect(removalRefusal({ actor, targetRole: 'owner', owners: 2 })).toBeNull();
      expect(removalRefusal({ actor, targetRole: 'owner', owners: 1 })?.message).toBe(MEMBER_MESSAGES.keepOneOwner);
    }
    // Keeping an owner an owner is no change.
    expect(roleChangeRefusal({ actor: 'owner', targetRole: 'owner', newRole: 'owner', owners: 1 })).toBeNull();
  });

  it('removes any non-owner member', () => {
    for (const actor of MANAGERS) for (const role of ORG_ROLES.filter((r) => r !== 'owner')) expect(removalRefusal({ actor, targetRole: role, owners: 1 })).toBeNull();
  });

  it('transfers ownership to someone else only', () => {
    expect(transferRefusal({ actorId: 'a', newOwnerId: 'a' })).toEqual({ code: 'bad_request', message: MEMBER_MESSAGES.selfTransfer });
    expect(transferRefusal({ actorId: 'a', newOwnerId: 'b' })).toBeNull();
  });
});
