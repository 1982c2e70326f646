import { describe, expect, it } from 'vitest';
import { ASSIGNABLE_PLATFORM_ROLES, PLATFORM_ROLES, isClientRole, isInternalRole, landingFor } from './roles.js';

describe('roles', () => {
  it('makes every role exactly one of client or internal', () => {
    expect(PLATFORM_ROLES.filter(isClientRole)).toEqual(['org_admin', 'org_member', 'client_admin', 'client_member']);
    for (const role of PLATFORM_ROLES) expect(isClientRole(role)).toBe(!isInternalRole(role));
  });

  it('lands each role per spec 5.4 (ai_operator with the ops roles)', () => {
    expect(Object.fromEntries(PLATFORM_ROLES.map((r) => [r, landingFor(r)]))).toEqual({
      superadmin: '/ops/clients',
      account_manager: '/ops/clients',
      ai_operator: '/ops/clients',
      expert: '/workspace/queue',
      org_admin: '/client/chat',
      org_member: '/client/chat',
      client_admin: '/client/chat',
      client_member: '/client/chat',
    });
  });

  it('never offers the legacy client roles for assignment', () => {
    expect(ASSIGNABLE_PLATFORM_ROLES).not.toContain('client_admin');
    expect(ASSIGNABLE_PLATFORM_ROLES).not.toContain('client_member');
  });
});
