import { describe, expect, it } from 'vitest';
import { ADMIN_MESSAGES, revokesSessions } from '../../contracts/admin.js';
import { ASSIGNABLE_PLATFORM_ROLES } from '../../contracts/roles.js';
import { auditDiff, changedFields, editRefusal, impersonationRefusal, removalRefusal, resetLimit, resetRefusal, type EditCheck } from './admin-users.rules.js';

const ACTOR = 'actor';
const superadmin = (id: string, status = 'active') => ({ id, platformRole: 'superadmin' as const, status });
const check = (over: Partial<EditCheck>): EditCheck => ({
  actorId: ACTOR,
  target: { id: 'target', platformRole: 'expert', status: 'active' },
  changes: {},
  otherSuperadmins: 1,
  otherActiveSuperadmins: 1,
  ...over,
});

describe('changedFields', () => {
  const current = { id: 'u', name: 'Ann', email: 'ann@example.com', platformRole: 'expert' as const, status: 'active' };
  it('keeps only the fields whose value differs', () => {
    expect(changedFields(current, { name: 'Ann', email: 'ann@example.com', platformRole: 'expert', status: 'active' })).toEqual({});
    expect(changedFields(current, { name: '', status: 'suspended' })).toEqual({ name: '', status: 'suspended' });
    expect(changedFields(current, { email: 'new@example.com' })).toEqual({ email: 'new@example.com' });
  });
});

describe('editRefusal (spec 7.2)', () => {
  it('refuses a change of your own role, with the spec message', () => {
    for (const role of ASSIGNABLE_PLATFORM_ROLES.filter((r) => r !== 'superadmin')) {
      expect(editRefusal(check({ target: superadmin(ACTOR), changes: { platformRole: role } }))).toEqual({ code: 'forbidden', message: ADMIN_MESSAGES.ownRole });
    }
  });

  it('refuses suspending or deactivating yourself, but not an edit of your own name or email', () => {
    for (const status of ['suspended', 'deactivated']) {
      expect(editRefusal(check({ target: superadmin(ACTOR), changes: { status } }))).toEqual({ code: 'forbidden', message: ADMIN_MESSAGES.ownStatus });
    }
    expect(editRefusal(check({ target: superadmin(ACTOR), changes: {} }))).toBeNull();
    expect(editRefusal(check({ target: superadmin(ACTOR), changes: { status: 'active' } }))).toBeNull();
  });

  it('checks the self rules before the last-SuperAdmin rules', () => {
    const alone = { otherSuperadmins: 0, otherActiveSuperadmins: 0 };
    expect(editRefusal(check({ ...alone, target: superadmin(ACTOR), changes: { platformRole: 'expert' } }))?.message).toBe(ADMIN_MESSAGES.ownRole);
    expect(editRefusal(check({ ...alone, target: superadmin(ACTOR), changes: { status: 'suspended' } }))?.message).toBe(ADMIN_MESSAGES.ownStatus);
  });

  it('refuses demoting the only remaining SuperAdmin, and the last active one while the others are suspended', () => {
    expect(editRefusal(check({ target: superadmin('b'), changes: { platformRole: 'account_manager' }, otherSuperadmins: 0, otherActiveSuperadmins: 0 }))).toEqual({
      code: 'conflict',
      message: ADMIN_MESSAGES.onlySuperadmin,
    });
    expect(editRefusal(check({ target: superadmin('b', 'suspended'), changes: { platformRole: 'expert' }, otherSuperadmins: 0, otherActiveSuperadmins: 0 }))?.message).toBe(
      ADMIN_MESSAGES.onlySuperadmin,
    );
    // Other SuperAdmins exist but none is active: nobody could reactivate them, so the demotion is refused too.
    expect(editRefusal(check({ target: superadmin('b'), changes: { platformRole: 'expert' }, otherSuperadmins: 2, otherActiveSuperadmins: 0 }))?.message).toBe(ADMIN_MESSAGES.onlySuperadmin);
    expect(editRefusal(check({ target: superadmin('b'), changes: { platformRole: 'expert' }, otherSuperadmins: 2, otherActiveSuperadmins: 1 }))).toBeNull();
  });

  it('refuses suspending or deactivating the only remaining active SuperAdmin', () => {
    for (const status of ['suspended', 'deactivated']) {
      expect(editRefusal(check({ target: superadmin('b'), changes: { status }, otherSuperadmins: 3, otherActiveSuperadmins: 0 }))).toEqual({
        code: 'conflict',
        message: ADMIN_MESSAGES.onlyActiveSuperadmin,
      });
      expect(editRefusal(check({ target: superadmin('b'), changes: { status }, otherActiveSuperadmins: 1 }))).toBeNull();
    }
    // A SuperAdmin who is not active is not the last active one: moving them between suspended and deactivated is fine.
    expect(editRefusal(check({ target: superadmin('b', 'suspended'), changes: { status: 'deactivated' }, otherActiveSuperadmins: 0 }))).toBeNull();
  });

  it('lets everything else through', () => {
    expect(editRefusal(check({ changes: { platformRole: 'superadmin', status: 'suspended' }, otherSuperadmins: 0, otherActiveSuperadmins: 0 }))).toBeNull();
  });
});

describe('removalRefusal', () => {
  it('treats removal as deactivation, and a hard delete of the last SuperAdmin as a demotion', () => {
    expect(removalRefusal({ actorId: ACTOR, target: superadmin(ACTOR), hard: false, otherSuperadmins: 1, otherActiveSuperadmins: 1 })?.message).toBe(ADMIN_MESSAGES.ownStatus);
    expect(removalRefusal({ actorId: ACTOR, target: superadmin('b'), hard: false, otherSuperadmins: 1, otherActiveSuperadmins: 0 })?.message).toBe(ADMIN_MESSAGES.onlyActiveSuperadmin);
    expect(removalRefusal({ actorId: ACTOR, target: superadmin('b', 'deactivated'), hard: true, otherSuperadmins: 0, otherActiveSuperadmins: 1 })?.message).toBe(ADMIN_MESSAGES.onlySuperadmin);
    expect(removalRefusal({ actorId: ACTOR, target: superadmin('b', 'deactivated'), hard: true, otherSuperadmins: 1, otherActiveSuperadmins: 1 })).toBeNull();
    expect(removalRefusal({ actorId: ACTOR, target: { id: 'x', platformRole: 'org_member', status: 'active' }, hard: true, otherSuperadmins: 0, otherActiveSuperadmins: 0 })).toBeNull();
  });
});

describe('password reset rules', () => {
  it('sends a code to active users only (spec 7.2, literally)', () => {
    expect(resetRefusal({ status: 'active' })).toBeNull();
    for (const status of ['suspended', 'deactivated', 'invited']) {
      expect(resetRefusal({ status })).toEqual({ code: 'bad_request', message: ADMIN_MESSAGES.resetNonActive });
    }
  });

  it('allows 5 initiations per hour and frees the window an hour after the oldest', () => {
    const now = new Date('2030-01-01T12:00:00Z');
    expect(resetLimit({ count: 0, oldestAt: null }, now)).toEqual({ allowed: true });
    expect(resetLimit({ count: 4, oldestAt: new Date('2030-01-01T11:10:00Z') }, now)).toEqual({ allowed: true });
    expect(resetLimit({ count: 5, oldestAt: new Date('2030-01-01T11:10:00Z') }, now)).toEqual({ allowed: false, resetAtMs: Date.parse('2030-01-01T12:10:00Z') });
  });
});

describe('impersonationRefusal (spec 5.8)', () => {
  it('never impersonates a SuperAdmin, with the spec message', () => {
    expect(impersonationRefusal({ platformRole: 'superadmin', status: 'active' })).toEqual({ code: 'forbidden', message: 'Cannot impersonate a Super Admin.' });
  });
  it('impersonates every other active user', () => {
    for (const role of ASSIGNABLE_PLATFORM_ROLES.filter((r) => r !== 'superadmin')) expect(impersonationRefusal({ platformRole: role, status: 'active' })).toBeNull();
    expect(impersonationRefusal({ platformRole: 'expert', status: 'suspended' })?.code).toBe('conflict');
  });
});

describe('session revocation and the audit diff (spec 4.7 rule 4, 6.3)', () => {
  const user = { id: 'u', name: 'Ann', email: 'ann@example.com', platformRole: 'expert' as const, status: 'active', passwordChangedAt: new Date('2030-01-01T00:00:00.123Z') };

  it('revokes on email, role, suspended or deactivated; never on a name-only edit or a reactivation', () => {
    expect(revokesSessions({ email: 'x@example.com' })).toBe(true);
    expect(revokesSessions({ platformRole: 'org_member' })).toBe(true);
    expect(revokesSessions({ status: 'suspended' })).toBe(true);
    expect(revokesSessions({ status: 'deactivated' })).toBe(true);
    expect(revokesSessions({ status: 'active' })).toBe(false);
    expect(revokesSessions({})).toBe(false);
  });

  it('lists each field from/to, with the passwordChangedAt revoked entry only when sessions end', () => {
    expect(auditDiff(user, { name: 'Anna' })).toEqual({ changes: { name: { from: 'Ann', to: 'Anna' } }, sessionsRevoked: false });
    expect(auditDiff(user, { name: 'Anna', status: 'suspended' })).toEqual({
      changes: {
        name: { from: 'Ann', to: 'Anna' },
        status: { from: 'active', to: 'suspended' },
        passwordChangedAt: { from: '2030-01-01T00:00:00.123Z', to: 'revoked' },
      },
      sessionsRevoked: true,
    });
  });
});
