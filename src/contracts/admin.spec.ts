import { describe, expect, it } from 'vitest';
import { ASSIGNABLE_PLATFORM_ROLES } from './roles.js';
import { UpdateUserSchema, draftChanges, isEditableStatus, promotesToSuperadmin, revokesSessions, saveBlocker, type UserEditDraft } from './admin.js';

const user: UserEditDraft = { name: 'Ann Lee', email: 'ann@example.com', platformRole: 'expert', status: 'active' };

describe('the edit-user form (spec 4.7)', () => {
  it('sends only the fields that changed; an emptied name is a change that clears it', () => {
    expect(draftChanges(user, { ...user })).toEqual({});
    expect(draftChanges(user, { ...user, name: '' })).toEqual({ name: '' });
    expect(draftChanges(user, { ...user, email: ' ANN@example.com ' })).toEqual({});
    expect(draftChanges(user, { ...user, email: 'new@example.com', status: 'suspended' })).toEqual({ email: 'new@example.com', status: 'suspended' });
    for (const body of [draftChanges(user, { ...user, name: 'B' }), draftChanges(user, { ...user, platformRole: 'org_member' })]) expect(UpdateUserSchema.safeParse(body).success).toBe(true);
  });

  it('never sends a status outside active/suspended/deactivated, and leaves a legacy status read-only', () => {
    expect(isEditableStatus('active')).toBe(true);
    expect(isEditableStatus('invited')).toBe(false);
    const legacy = { ...user, status: 'invited' };
    expect(draftChanges(legacy, { ...legacy, status: 'active' })).toEqual({});
  });

  it('disables Save until a field changed and the email is valid (rule 1)', () => {
    expect(saveBlocker(user, { ...user }, '')).toBe('no_change');
    expect(saveBlocker(user, { ...user, email: 'not-an-email' }, '')).toBe('invalid_email');
    expect(saveBlocker(user, { ...user, name: 'Ann' }, '')).toBeNull();
  });

  it("needs the target's email typed exactly to promote to SuperAdmin (rule 3)", () => {
    const draft = { ...user, platformRole: 'superadmin' as const };
    expect(promotesToSuperadmin(user, draft)).toBe(true);
    expect(saveBlocker(user, draft, '')).toBe('confirm_email');
    expect(saveBlocker(user, draft, 'ANN@example.com')).toBe('confirm_email');
    expect(saveBlocker(user, draft, 'ann@example.com')).toBeNull();
    expect(promotesToSuperadmin({ ...user, platformRole: 'superadmin' }, { ...user, platformRole: 'superadmin' })).toBe(false);
  });

  it('asks for a confirmation exactly when sessions will be revoked (rule 4)', () => {
    expect(revokesSessions(draftChanges(user, { ...user, name: 'Other' }))).toBe(false);
    expect(revokesSessions(draftChanges(user, { ...user, status: 'active' }))).toBe(false);
    expect(revokesSessions(draftChanges(user, { ...user, email: 'b@example.com' }))).toBe(true);
    for (const role of ASSIGNABLE_PLATFORM_ROLES.filter((r) => r !== 'expert')) expect(revokesSessions(draftChanges(user, { ...user, platformRole: role }))).toBe(true);
    expect(revokesSessions(draftChanges(user, { ...user, status: 'deactivated' }))).toBe(true);
  });
});
