import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersService } from '../../src/modules/users/index.js';
import { demoCast, type DemoCast } from '../support/tenants.js';
import { codeMailedBy } from '../support/mail.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('org members and ownership (spec 4.6)', () => {
  let app: TestApp;
  let cast: DemoCast;
  let memberId: string;
  let ownerId: string;
  beforeAll(async () => {
    app = await startTestApp();
    cast = await demoCast(app);
    memberId = (await app.get('/api/auth/me', { token: cast.member })).body.id;
    ownerId = (await app.get('/api/auth/me', { token: cast.owner })).body.id;
  });
  afterAll(async () => {
    await app?.close();
  });

  let seq = 0;
  const email = (p: string) => `${p}-${++seq}@acme.example.com`;
  /** Invites through the API as the acme owner, then signs the new member in. */
  async function invited(orgRole: 'admin' | 'member' | 'billing') {
    const address = email(orgRole);
    const res = await app.post('/api/admin/members/invite', { email: address, name: `New ${orgRole}`, orgRole }, { token: cast.owner });
    expect(res.status).toBe(201);
    await app.running.app.get(UsersService).setPassword(res.body.userId, 'a-good-password');
    return { id: res.body.userId as string, email: address, token: await app.login(address, 'a-good-password') };
  }

  it('lists the members of every org role to members of the org and to staff with orgId; another org answers 404', async () => {
    for (const token of [cast.owner, cast.member]) {
      const res = await app.get('/api/admin/members', { token });
      expect(res.status).toBe(200);
      expect(res.body.nextCursor).toBeNull();
      expect(res.body.items).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ id: ownerId, userId: ownerId, email: 'org_admin@acme.demo.invalid', orgRole: 'owner', orgId: cast.acmeId }),
          expect.objectContaining({ id: memberId, email: 'client@acme.demo.invalid', orgRole: 'member' }),
        ]),
      );
    }
    for (const token of [cast.superadmin, cast.am, cast.aiOperator]) {
      const res = await app.get(`/api/admin/members?orgId=${cast.acmeId}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeGreaterThanOrEqual(2);
    }
    const outsider = await app.get(`/api/admin/members?orgId=${cast.acmeId}`, { token: cast.hooliOwner });
    expect(outsider.status).toBe(404);
    expect((await app.get('/api/admin/members', { token: cast.hooliOwner })).body.items.map((m: { orgId: string }) => m.orgId)).toEqual([cast.hooliId]);
  });

  it('invites (org_admin with admin or owner role), mails the invitee, who signs in with an emailed code', async () => {
    const address = email('invitee');
    const res = await app.post('/api/admin/members/invite', { email: address.toUpperCase(), name: 'Invited Person', orgRole: 'billing' }, { token: cast.owner });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: address, name: 'Invited Person', orgRole: 'billing', platformRole: 'org_member', orgId: cast.acmeId });
    const mail = (await app.get(`/api/dev/mail?to=${encodeURIComponent(address)}`)).body[0];
    expect(mail.subject).toBe('You have been invited to Acme Corporation');
    expect(mail.text).toContain('/login');

    const code = await codeMailedBy(app.url, address, () => app.post('/api/auth/request-otp', { email: address }));
    const signIn = await app.post('/api/auth/verify-otp', { email: address, code });
    expect(signIn.status).toBe(200);
    expect(signIn.body.user.orgMemberships).toEqual([expect.objectContaining({ orgId: cast.acmeId, orgRole: 'billing' })]);

    const [row] = (await app.get(`/api/ops/audit?action=org.member.invited&resourceId=${res.body.userId}`, { token: cast.superadmin })).body.items;
    expect(row).toMatchObject({ userId: ownerId, orgId: cast.acmeId, meta: { orgRole: 'billing' } });
  });

  it('refuses invites by members, of an owner, of a current member or of an internal user', async () => {
    const byMember = await app.post('/api/admin/members/invite', { email: email('x'), orgRole: 'member' }, { token: cast.member });
    expect(byMember.status).toBe(403);
    const owner = await app.post('/api/admin/members/invite', { email: email('x'), orgRole: 'owner' }, { token: cast.owner });
    expect(owner.status).toBe(403);
    expect(owner.body.message).toBe('Ownership moves only through transfer-ownership');
    const again = await app.post('/api/admin/members/invite', { email: 'client@acme.demo.invalid', orgRole: 'member' }, { token: cast.owner });
    expect(again.status).toBe(409);
    expect(again.body.details).toEqual({ field: 'email' });
    expect((await app.post('/api/admin/members/invite', { email: email('x'), orgRole: 'member', orgId: cast.hooliId }, { token: cast.owner })).status).toBe(404);
  });

  it('sets roles up to Admin; the platform role follows (an admin may invite); owners are out of reach', async () => {
    const person = await invited('member');
    const promoted = await app.patch(`/api/admin/members/${person.id}/role`, { orgRole: 'admin' }, { token: cast.owner });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ orgRole: 'admin', platformRole: 'org_admin' });
    // Not revoked: the principal is read per request, so the new role applies at once.
    expect((await app.post('/api/admin/members/invite', { email: email('by-admin'), orgRole: 'member' }, { token: person.token })).status).toBe(201);

    const toOwner = await app.patch(`/api/admin/members/${memberId}/role`, { orgRole: 'owner' }, { token: person.token });
    expect(toOwner.status).toBe(403);
    expect(toOwner.body.message).toBe('Ownership moves only through transfer-ownership');
    const ownerTouched = await app.patch(`/api/admin/members/${ownerId}/role`, { orgRole: 'member' }, { token: person.token });
    expect(ownerTouched.status).toBe(403);
    expect(ownerTouched.body.message).toBe('Only an owner can change or remove an owner');
    const lastOwner = await app.patch(`/api/admin/members/${ownerId}/role`, { orgRole: 'admin' }, { token: cast.owner });
    expect(lastOwner.status).toBe(409);
    expect(lastOwner.body).toMatchObject({ code: 'conflict', message: 'An organization must keep at least one owner' });

    expect((await app.patch(`/api/admin/members/${person.id}/role`, { orgRole: 'billing' }, { token: cast.member })).status).toBe(403);
    expect((await app.patch(`/api/admin/members/${ownerId}/role`, { orgRole: 'member' }, { token: cast.hooliOwner })).status).toBe(404);

    const demoted = await app.patch(`/api/admin/members/${person.id}/role`, { orgRole: 'member' }, { token: cast.owner });
    expect(demoted.body).toMatchObject({ orgRole: 'member', platformRole: 'org_member' });
    expect((await app.post('/api/admin/members/invite', { email: email('x'), orgRole: 'member' }, { token: person.token })).status).toBe(403);
    const [row] = (await app.get(`/api/ops/audit?action=org.member.role_updated&resourceId=${person.id}`, { token: cast.superadmin })).body.items;
    expect(row.meta).toEqual({ changes: { orgRole: { from: 'admin', to: 'member' } } });
  });

  it('removes members (admin or owner), never the last owner; another org answers 404', async () => {
    const person = await invited('member');
    const admin = await invited('admin');
    expect((await app.request('DELETE', `/api/orgs/${cast.acmeId}/members/${person.id}`, { token: cast.member })).status).toBe(403);
    expect((await app.request('DELETE', `/api/orgs/${cast.acmeId}/members/${person.id}`, { token: cast.hooliOwner })).status).toBe(404);
    expect((await app.request('DELETE', `/api/orgs/${cast.acmeId}/members/${person.id}`, { token: admin.token })).status).toBe(204);
    expect((await app.get('/api/auth/me', { token: person.token })).body.orgMemberships).toEqual([]);
    expect((await app.request('DELETE', `/api/orgs/${cast.acmeId}/members/${person.id}`, { token: admin.token })).status).toBe(404);

    const byAdmin = await app.request('DELETE', `/api/orgs/${cast.acmeId}/members/${ownerId}`, { token: admin.token });
    expect(byAdmin.status).toBe(403);
    const self = await app.request('DELETE', `/api/orgs/${cast.acmeId}/members/${ownerId}`, { token: cast.owner });
    expect(self.status).toBe(409);
    expect(self.body.message).toBe('An organization must keep at least one owner');
  });

  it('transfers ownership (owner only) to another member; the previous owner stays as admin', async () => {
    const heir = await invited('member');
    expect((await app.post(`/api/orgs/${cast.acmeId}/transfer-ownership`, { userId: heir.id }, { token: cast.member })).status).toBe(403);
    expect((await app.post(`/api/orgs/${cast.acmeId}/transfer-ownership`, { userId: heir.id }, { token: cast.superadmin })).status).toBe(404);
    const self = await app.post(`/api/orgs/${cast.acmeId}/transfer-ownership`, { userId: ownerId }, { token: cast.owner });
    expect(self.status).toBe(400);
    expect(self.body.message).toBe('You already own this organization');
    const outsider = (await app.get('/api/auth/me', { token: cast.aiOperator })).body.id;
    expect((await app.post(`/api/orgs/${cast.acmeId}/transfer-ownership`, { userId: outsider }, { token: cast.owner })).status).toBe(404);

    const res = await app.post(`/api/orgs/${cast.acmeId}/transfer-ownership`, { userId: heir.id }, { token: cast.owner });
    expect(res.status).toBe(200);
    const roles = Object.fromEntries(res.body.items.map((m: { userId: string; orgRole: string }) => [m.userId, m.orgRole]));
    expect(roles[heir.id]).toBe('owner');
    expect(roles[ownerId]).toBe('admin');
    expect((await app.get('/api/auth/me', { token: heir.token })).body).toMatchObject({ platformRole: 'org_admin', orgMemberships: [expect.objectContaining({ orgRole: 'owner' })] });
    // The former owner is an admin now: no more transfers, and the new owner is out of their reach.
    expect((await app.post(`/api/orgs/${cast.acmeId}/transfer-ownership`, { userId: memberId }, { token: cast.owner })).status).toBe(403);
    expect((await app.patch(`/api/admin/members/${heir.id}/role`, { orgRole: 'member' }, { token: cast.owner })).status).toBe(403);
    const [row] = (await app.get(`/api/ops/audit?action=org.ownership_transferred&orgId=${cast.acmeId}`, { token: cast.superadmin })).body.items;
    expect(row).toMatchObject({ userId: ownerId, resourceId: heir.id, meta: { from: ownerId, to: heir.id } });

    // The new owner hands it back.
    expect((await app.post(`/api/orgs/${cast.acmeId}/transfer-ownership`, { userId: ownerId }, { token: heir.token })).status).toBe(200);
  });
});
