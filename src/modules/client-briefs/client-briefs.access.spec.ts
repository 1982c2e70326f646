import { describe, expect, it } from 'vitest';
import type { OrgRole, PlatformRole } from '../../contracts/roles.js';
import { briefAccess } from './client-briefs.access.js';

const ORG = '00000000-0000-4000-8000-00000000000a';
const OTHER = '00000000-0000-4000-8000-00000000000b';
const caller = (platformRole: PlatformRole, orgRole?: OrgRole, orgId = ORG) => ({ platformRole, orgMemberships: orgRole ? [{ orgId, orgRole }] : [] });

describe('briefAccess', () => {
  it.each([
    ['org_admin', 'owner', 'edit'],
    ['org_admin', 'admin', 'edit'],
    ['org_member', 'member', 'read'],
    ['org_member', 'billing', 'read'],
    ['client_member', 'member', 'read'],
  ] as const)('%s with orgRole %s of the org: %s', (role, orgRole, expected) => {
    expect(briefAccess(caller(role, orgRole), ORG, false)).toBe(expected);
  });

  it('gives nothing to members of another org', () => {
    expect(briefAccess(caller('org_admin', 'owner', OTHER), ORG, false)).toBe('none');
  });

  it('lets account managers and superadmins edit any org, AI operators read', () => {
    expect(briefAccess(caller('account_manager'), ORG, false)).toBe('edit');
    expect(briefAccess(caller('superadmin'), ORG, false)).toBe('edit');
    expect(briefAccess(caller('ai_operator'), ORG, false)).toBe('read');
  });

  it('lets an Expert read only the orgs its grants cover', () => {
    expect(briefAccess(caller('expert'), ORG, true)).toBe('read');
    expect(briefAccess(caller('expert'), ORG, false)).toBe('none');
  });
});
