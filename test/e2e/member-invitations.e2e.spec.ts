import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orgMemberInvitations } from '../../src/modules/admin/admin.tables.js';
import { UsersService } from '../../src/modules/users/index.js';
import { demoCast, type DemoCast } from '../support/tenants.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { unscopedOrg } from '../../src/platform/tenancy/org-scope.js';

const PASSWORD = 'a-good-password';
const HOSTILE = '<img src=x onerror=alert(1)>';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Mail {
  subject: string;
  text: string;
  html: string | null;
}

/**
 * Member invitations of existing users (API-MAP "Sessions, sockets and hardening"): an org admin
 * can no longer add another org's user, or change anyone's platform role; the user accepts a
 * mailed invitation, and the answer to the inviter tells nothing about the address.
 */
describe('member invitations', () => {
  let app: TestApp;
  let cast: DemoCast;
  let users: UsersService;
  let seq = 0;
  beforeAll(async () => {
    app = await startTestApp();
    cast = await demoCast(app);
    users = app.running.app.get(UsersService);
  });
  afterAll(async () => {
    await app?.close();
  });

  /** A client user of org A (acme) with a password, signed in. */
  async function acmeMember(prefix: string) {
    const address = `${prefix}-${++seq}@acme.example.com`;
    const user = await users.create({ email: address, name: `Acme ${prefix}`, platformRole: 'org_member', password: PASSWORD });
    await users.addMembership(unscopedOrg(cast.acmeId, 'test setup'), user.id, 'member');
    return { id: user.id, email: address, token: await app.login(address, PASSWORD) };
  }
  const mailsTo = async (address: string): Promise<Mail[]> => (await app.get(`/api/dev/mail?to=${encodeURIComponent(address)}`)).body;
  const tokenOf = (mail: Mail) => /\/invitations\/accept\?token=([\w-]+)/.exec(mail.text)![1]!;
  const me = async (token: string) => (await app.get('/api/auth/me', { token })).body;
  const invite = (body: Record<string, unknown>, token = cast.hooliOwner) => app.post('/api/admin/members/invite', body, { token });

  it("org B's admin invites org A's member: nothing changes, the mail goes out, the answer equals a new address's", async () => {
    const victim = await acmeMember('victim');
    const existing = await invite({ email: victim.email, name: 'Someone', orgRole: 'admin' });
    const fresh = await invite({ email: `new-${++seq}@elsewhere.example.com`, name: 'Someone', orgRole: 'admin' });

    expect(existing.status).toBe(201);
    expect(fresh.status).toBe(201);
    // Same shape and the same values, but for the address and the ids (and the moment).
    const comparable = (b: Record<string, unknown>) => ({ ...b, id: typeof b.id, userId: typeof b.userId, email: typeof b.email, joinedAt: typeof b.joinedAt });
    expect(comparable(existing.body)).toEqual(comparable(fresh.body));
    expect(Object.keys(existing.body).sort()).toEqual(Object.keys(fresh.body).sort());
    expect(existing.body).toMatchObject({ email: victim.email, name: 'Someone', platformRole: 'org_admin', status: 'active', orgId: cast.hooliId, orgRole: 'admin' });
    expect(existing.body.id).toMatch(UUID);
    expect(existing.body.userId).not.toBe(victim.id);
    const headerNames = (h: Headers) => [...h.keys()].sort();
    expect(headerNames(existing.headers)).toEqual(headerNames(fresh.headers));

    // Nothing changed for the victim: no membership, no role; org B does not list them.
    const victimNow = await me(victim.token);
    expect(victimNow.platformRole).toBe('org_member');
    expect(victimNow.orgMemberships).toEqual([expect.objectContaining({ orgId: cast.acmeId, orgRole: 'member' })]);
    const hooli = (await app.get('/api/admin/members', { token: cast.hooliOwner })).body.items.map((m: { email: string }) => m.email);
    expect(hooli).not.toContain(victim.email);

    // The invitation went out, with a link to accept it.
    const [mail] = await mailsTo(victim.email);
    expect(mail!.subject).toBe('You have been invited to Hooli');
    expect(mail!.text).toContain('Nothing changes until you accept');
    expect(tokenOf(mail!)).toMatch(/^[\w-]{43}$/);

    // A second invite answers as for a new address invited twice.
    const again = await invite({ email: victim.email, orgRole: 'member' });
    const freshAgain = await invite({ email: fresh.body.email, orgRole: 'member' });
    expect(again.status).toBe(409);
    expect({ ...again.body, requestId: undefined }).toEqual({ ...freshAgain.body, requestId: undefined });
  });

  it('never lets an invite touch an internal user; the answer is the same again', async () => {
    const expertBefore = await users.findByEmail('expert@platform.demo.invalid');
    const res = await invite({ email: 'expert@platform.demo.invalid', orgRole: 'admin' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: 'expert@platform.demo.invalid', platformRole: 'org_admin', orgId: cast.hooliId, orgRole: 'admin', name: '' });
    const expertAfter = (await users.load(expertBefore!.id))!;
    expect(expertAfter.platformRole).toBe('expert');
    expect(expertAfter.orgMemberships).toEqual([]);
  });

  it('is accepted by the invited user only, once: the wrong user gets 404, the right one joins', async () => {
    const person = await acmeMember('joiner');
    expect((await invite({ email: person.email, orgRole: 'admin' })).status).toBe(201);
    const token = tokenOf((await mailsTo(person.email))[0]!);

    for (const other of [cast.hooliOwner, cast.owner, cast.member, cast.superadmin]) {
      expect((await app.get(`/api/admin/members/invitations/${token}`, { token: other })).status).toBe(404);
      const wrong = await app.post(`/api/admin/members/invitations/${token}/accept`, undefined, { token: other });
      expect(wrong.status).toBe(404);
      expect(wrong.body.code).toBe('not_found');
    }
    expect((await app.post(`/api/admin/members/invitations/${token}/accept`)).status).toBe(401);
    expect((await app.post(`/api/admin/members/invitations/${'x'.repeat(43)}/accept`, undefined, { token: person.token })).status).toBe(404);
    // Not on the user's behalf: an impersonating SuperAdmin cannot accept.
    const impersonation = await app.post(`/api/admin/impersonate/${person.id}`, { reason: 'Checking an invitation' }, { token: cast.superadmin });
    expect((await app.post(`/api/admin/members/invitations/${token}/accept`, undefined, { token: impersonation.body.token })).status).toBe(403);
    expect((await me(person.token)).orgMemberships).toHaveLength(1);

    const shown = await app.get(`/api/admin/members/invitations/${token}`, { token: person.token });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ orgId: cast.hooliId, orgName: 'Hooli', orgRole: 'admin', email: person.email });

    const accepted = await app.post(`/api/admin/members/invitations/${token}/accept`, undefined, { token: person.token });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ userId: person.id, orgId: cast.hooliId, orgRole: 'admin' });
    // The next request sees the new membership (and the client role that follows from it).
    const after = await me(person.token);
    expect(after.orgMemberships.map((m: { orgId: string; orgRole: string }) => [m.orgId, m.orgRole]).sort()).toEqual(
      [
        [cast.acmeId, 'member'],
        [cast.hooliId, 'admin'],
      ].sort(),
    );
    expect((await app.get(`/api/admin/members?orgId=${cast.hooliId}`, { token: person.token })).body.items.map((m: { userId: string }) => m.userId)).toContain(person.id);

    const twice = await app.post(`/api/admin/members/invitations/${token}/accept`, undefined, { token: person.token });
    expect(twice.status).toBe(410);
    expect(twice.body.code).toBe('invite_used');
    const [row] = (await app.get(`/api/ops/audit?action=org.member.invitation_accepted&resourceId=${person.id}`, { token: cast.superadmin })).body.items;
    expect(row).toMatchObject({ userId: person.id, orgId: cast.hooliId, meta: { orgRole: 'admin' } });
  });

  it('refuses an expired invitation (410 invite_expired)', async () => {
    const person = await acmeMember('late');
    expect((await invite({ email: person.email, orgRole: 'member' })).status).toBe(201);
    const token = tokenOf((await mailsTo(person.email))[0]!);
    await app.running.dbService.db
      .update(orgMemberInvitations)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(orgMemberInvitations.email, person.email));
    const res = await app.post(`/api/admin/members/invitations/${token}/accept`, undefined, { token: person.token });
    expect(res.status).toBe(410);
    expect(res.body.code).toBe('invite_expired');
    expect((await me(person.token)).orgMemberships).toHaveLength(1);
    // Expired, it no longer blocks a new invitation.
    expect((await invite({ email: person.email, orgRole: 'member' })).status).toBe(201);
  });

  it('escapes user-chosen names in the mail HTML and keeps them out of the headers', async () => {
    expect((await app.patch('/api/auth/me', { name: HOSTILE }, { token: cast.owner })).status).toBe(200);
    const org = await app.post(
      '/api/am/orgs',
      {
        legalName: `Evil ${HOSTILE}\r\nBcc: victim@example.com`,
        slug: 'evil-corp',
        industry: 'technology',
        corporateDomains: ['evil.example.com'],
        adminEmail: 'boss@evil.example.com',
        website: 'https://evil.example.com',
        timezone: 'UTC',
      },
      { token: cast.am },
    );
    expect(org.status).toBe(201);
    await app.post('/api/admin/members/invite', { email: 'brand-new@evil.example.com', orgRole: 'member', orgId: org.body.id }, { token: cast.superadmin });
    const other = await acmeMember('other');
    await users.removeMembership(unscopedOrg(cast.acmeId, 'test setup'), other.id);
    expect((await invite({ email: other.email, orgRole: 'member' }, cast.owner)).status).toBe(201);

    const [fromOwner] = await mailsTo(other.email);
    expect(fromOwner!.html).toContain('&lt;img src=x onerror=alert(1)&gt; invited you to join Acme Corporation');
    expect(fromOwner!.html).not.toContain('<img');
    const [toEvil] = await mailsTo('brand-new@evil.example.com');
    expect(toEvil!.subject).not.toMatch(/[\r\n]/);
    expect(toEvil!.html).toContain('Evil &lt;img src=x onerror=alert(1)&gt;');
    expect(toEvil!.html).not.toContain('<img');
  });

  it('allows 20 invitations per org and hour, then answers 429 rate_limit with the spec 7.1 headers', async () => {
    const org = await app.post(
      '/api/am/orgs',
      {
        legalName: 'Initech',
        slug: 'initech',
        industry: 'technology',
        corporateDomains: ['initech.example.com'],
        adminEmail: 'bill@initech.example.com',
        website: 'https://initech.example.com',
        timezone: 'UTC',
      },
      { token: cast.am },
    );
    const orgId = org.body.id as string;
    for (let i = 0; i < 20; i++) {
      const res = await app.post('/api/admin/members/invite', { email: `peon-${i}@initech.example.com`, orgRole: 'member', orgId }, { token: cast.superadmin });
      expect(res.status, `invite ${i + 1}`).toBe(201);
    }
    const limited = await app.post('/api/admin/members/invite', { email: 'peon-21@initech.example.com', orgRole: 'member', orgId }, { token: cast.superadmin });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ statusCode: 429, code: 'rate_limit', error: 'ThrottlerException' });
    expect(limited.headers.get('x-ratelimit-limit')).toBe('20');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(await users.findByEmail('peon-21@initech.example.com')).toBeUndefined();
    // Per org: another org still invites.
    expect((await invite({ email: `other-org-${++seq}@hooli.example.com`, orgRole: 'member' })).status).toBe(201);
  });
});
