import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_MESSAGES } from '../../src/contracts/admin.js';
import type { PlatformRole } from '../../src/contracts/roles.js';
import { AdminUsersService } from '../../src/modules/admin/admin-users.service.js';
import { emailOtpCodes } from '../../src/modules/auth/auth.tables.js';
import { UsersService } from '../../src/modules/users/index.js';
import { INTERNAL_SESSION_ID, type Principal } from '../../src/platform/auth/principal.js';
import { productionEnv } from '../support/env.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
const SUPERADMIN = 'superadmin@platform.demo.invalid';

let seq = 0;
const uniqueEmail = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}@example.com`;

/** A user with a password, signed in: its id and a token. */
async function newUser(app: TestApp, role: PlatformRole, opts: { name?: string; email?: string } = {}) {
  const email = opts.email ?? uniqueEmail(role);
  const row = await app.running.app.get(UsersService).create({ email, name: opts.name ?? `Test ${role}`, platformRole: role, password: 'a-good-password' });
  return { id: row.id, email, token: await app.login(email, 'a-good-password') };
}

const auditOf = async (app: TestApp, token: string, query: string) => (await app.get(`/api/ops/audit?${query}`, { token })).body.items as Array<Record<string, any>>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SuperAdmin user administration (spec 4.7)', () => {
  let app: TestApp;
  let superadmin: string;
  let superadminId: string;
  beforeAll(async () => {
    app = await startTestApp();
    superadmin = await app.login(SUPERADMIN, PASSWORD);
    superadminId = (await app.get('/api/auth/me', { token: superadmin })).body.id;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is for superadmins only: 401 without a token, 403 for every other role', async () => {
    const others = [
      await app.login('account_manager@platform.demo.invalid', PASSWORD),
      await app.login('expert@platform.demo.invalid', PASSWORD),
      await app.login('org_admin@acme.demo.invalid', PASSWORD),
    ];
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/api/admin/users'],
      ['GET', `/api/admin/users/${superadminId}`],
      ['GET', `/api/admin/users/${superadminId}/activity`],
      ['PATCH', `/api/admin/users/${superadminId}`, { name: 'x' }],
      ['PATCH', `/api/admin/users/${superadminId}/role`, { platformRole: 'expert' }],
      ['PATCH', `/api/admin/users/${superadminId}/password`, { password: 'another-password' }],
      ['POST', `/api/admin/users/${superadminId}/password-reset`],
      ['DELETE', `/api/admin/users/${superadminId}`],
    ];
    for (const [method, path, body] of routes) {
      expect((await app.request(method, path, { body })).status, `${method} ${path}`).toBe(401);
      for (const token of others) {
        const res = await app.request(method, path, { token, body });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.code).toBe('forbidden');
      }
    }
  });

  it('lists users newest first with a role filter, a name/email search and cursor pages', async () => {
    const marker = `zz${Date.now().toString(36)}`;
    const a = await newUser(app, 'expert', { name: `Alpha ${marker}` });
    const b = await newUser(app, 'account_manager', { email: `${marker}-b@example.com` });
    const byName = await app.get(`/api/admin/users?q=${marker}`, { token: superadmin });
    expect(byName.status).toBe(200);
    expect(byName.body.items.map((u: { id: string }) => u.id)).toEqual([b.id, a.id]);
    expect(byName.body.items[1]).toMatchObject({ id: a.id, email: a.email, name: `Alpha ${marker}`, platformRole: 'expert', status: 'active', totpEnabled: false, removedAt: null });
    expect((await app.get(`/api/admin/users?q=${marker}&role=expert`, { token: superadmin })).body.items.map((u: { id: string }) => u.id)).toEqual([a.id]);
    expect((await app.get(`/api/admin/users?q=${marker.toUpperCase()}-B`, { token: superadmin })).body.items.map((u: { id: string }) => u.id)).toEqual([b.id]);
    // `%` is a character, not a pattern.
    expect((await app.get('/api/admin/users?q=%25', { token: superadmin })).body.items).toEqual([]);

    const roles = (await app.get('/api/admin/users?role=superadmin', { token: superadmin })).body.items;
    expect(roles.length).toBeGreaterThan(0);
    expect(roles.every((u: { platformRole: string }) => u.platformRole === 'superadmin')).toBe(true);

    const first = await app.get('/api/admin/users?limit=2', { token: superadmin });
    expect(first.body.items).toHaveLength(2);
    const next = await app.get(`/api/admin/users?limit=2&cursor=${first.body.nextCursor}`, { token: superadmin });
    expect(next.body.items[0].id).not.toBe(first.body.items[0].id);
    expect((await app.get('/api/admin/users?role=client_admin', { token: superadmin })).status).toBe(200);
    expect((await app.get('/api/admin/users?role=nobody', { token: superadmin })).status).toBe(400);
  });

  it('shows one user with their memberships; 404 for an unknown or malformed id', async () => {
    const owner = (await app.get('/api/admin/users?q=org_admin@acme', { token: superadmin })).body.items[0];
    const res = await app.get(`/api/admin/users/${owner.id}`, { token: superadmin });
    expect(res.status).toBe(200);
    expect(res.body.orgMemberships).toEqual([expect.objectContaining({ orgRole: 'owner', orgSlug: 'acme', orgName: 'Acme Corporation' })]);
    expect((await app.get('/api/admin/users/00000000-0000-4000-8000-000000000000', { token: superadmin })).status).toBe(404);
    expect((await app.get('/api/admin/users/not-a-uuid', { token: superadmin })).status).toBe(404);
  });

  it('saves a name-only edit without touching sessions; an empty name clears it', async () => {
    const user = await newUser(app, 'expert', { name: 'Old Name' });
    const res = await app.patch(`/api/admin/users/${user.id}`, { name: 'New Name' }, { token: superadmin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, name: 'New Name' });
    expect((await app.get('/api/auth/me', { token: user.token })).status).toBe(200);

    const cleared = await app.patch(`/api/admin/users/${user.id}`, { name: '' }, { token: superadmin });
    expect(cleared.body.name).toBe('');
    expect((await app.get('/api/auth/me', { token: user.token })).body.name).toBe('');

    const rows = await auditOf(app, superadmin, `action=admin.user.updated&resourceId=${user.id}`);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({
      action: 'admin.user.updated',
      userId: superadminId,
      resourceId: user.id,
      meta: { actorId: superadminId, targetUserId: user.id, changes: { name: { from: 'Old Name', to: 'New Name' } }, sessionsRevoked: false },
    });
    expect(rows[1]!.meta.changes.passwordChangedAt).toBeUndefined();
  });

  it('treats fields equal to the current values as no change (nothing saved, nothing revoked, nothing audited)', async () => {
    const user = await newUser(app, 'expert');
    const res = await app.patch(`/api/admin/users/${user.id}`, { email: user.email, platformRole: 'expert', status: 'active' }, { token: superadmin });
    expect(res.status).toBe(200);
    expect((await app.get('/api/auth/me', { token: user.token })).status).toBe(200);
    expect(await auditOf(app, superadmin, `resourceId=${user.id}&action=admin.user.updated`)).toEqual([]);
  });

  it('revokes the sessions on an email change, with a passwordChangedAt revoked entry in the diff', async () => {
    const user = await newUser(app, 'expert');
    const newEmail = uniqueEmail('moved');
    await sleep(5);
    const res = await app.patch(`/api/admin/users/${user.id}`, { email: newEmail.toUpperCase() }, { token: superadmin });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(newEmail);
    const me = await app.get('/api/auth/me', { token: user.token });
    expect(me.status).toBe(401);
    expect(me.body.code).toBe('unauthorized');
    expect((await app.post('/api/auth/login', { email: user.email, password: 'a-good-password' })).status).toBe(401);
    expect((await app.get('/api/auth/me', { token: await app.login(newEmail, 'a-good-password') })).status).toBe(200);

    const [row] = await auditOf(app, superadmin, `action=admin.user.updated&resourceId=${user.id}`);
    expect(row!.meta).toMatchObject({
      changes: { email: { from: user.email, to: newEmail }, passwordChangedAt: { from: expect.any(String), to: 'revoked' } },
      sessionsRevoked: true,
    });
  });

  it('revokes on a platform role change and on suspend or deactivate; reactivating lets the user sign in again', async () => {
    const roleChanged = await newUser(app, 'expert');
    await sleep(5);
    const role = await app.patch(`/api/admin/users/${roleChanged.id}`, { platformRole: 'account_manager' }, { token: superadmin });
    expect(role.body.platformRole).toBe('account_manager');
    expect((await app.get('/api/auth/me', { token: roleChanged.token })).status).toBe(401);
    const fresh = await app.login(roleChanged.email, 'a-good-password');
    expect((await app.get('/api/auth/me', { token: fresh })).body.platformRole).toBe('account_manager');

    for (const status of ['suspended', 'deactivated'] as const) {
      const user = await newUser(app, 'org_member');
      await sleep(5);
      const res = await app.patch(`/api/admin/users/${user.id}`, { status }, { token: superadmin });
      expect(res.body.status).toBe(status);
      expect((await app.get('/api/auth/me', { token: user.token })).status).toBe(401);
      expect((await app.post('/api/auth/login', { email: user.email, password: 'a-good-password' })).status).toBe(401);
      const back = await app.patch(`/api/admin/users/${user.id}`, { status: 'active' }, { token: superadmin });
      expect(back.body.status).toBe('active');
      expect((await app.get('/api/auth/me', { token: await app.login(user.email, 'a-good-password') })).status).toBe(200);
      const [reactivation] = await auditOf(app, superadmin, `action=admin.user.updated&resourceId=${user.id}`);
      expect(reactivation!.meta).toMatchObject({ changes: { status: { from: status, to: 'active' } }, sessionsRevoked: false });
    }
  });

  it('refuses a password, unknown fields, an empty body, legacy roles and other statuses (400)', async () => {
    const user = await newUser(app, 'expert');
    const bodies = [
      { password: 'new-password-1' },
      { name: 'x', password: 'new-password-1' },
      {},
      { platformRole: 'client_admin' },
      { platformRole: 'client_member' },
      { status: 'invited' },
      { email: 'not-an-email' },
    ];
    for (const body of bodies) {
      const res = await app.patch(`/api/admin/users/${user.id}`, body, { token: superadmin });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
    for (const platformRole of ['client_admin', 'client_member']) {
      expect((await app.patch(`/api/admin/users/${user.id}/role`, { platformRole }, { token: superadmin })).status).toBe(400);
    }
    expect((await app.get('/api/auth/me', { token: user.token })).status).toBe(200);
  });

  it("answers 409 'Email already in use' on the email field", async () => {
    const user = await newUser(app, 'expert');
    const other = await newUser(app, 'expert');
    const res = await app.patch(`/api/admin/users/${user.id}`, { email: other.email.toUpperCase() }, { token: superadmin });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ statusCode: 409, code: 'conflict', error: 'Conflict', message: 'Email already in use', details: { field: 'email' } });
    expect((await app.get('/api/auth/me', { token: user.token })).status).toBe(200);
  });

  it('refuses changing your own role and suspending or deactivating yourself, with the spec messages', async () => {
    for (const [path, body] of [
      [`/api/admin/users/${superadminId}`, { platformRole: 'expert' }],
      [`/api/admin/users/${superadminId}/role`, { platformRole: 'account_manager' }],
    ] as const) {
      const res = await app.patch(path, body, { token: superadmin });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'forbidden', message: 'Cannot change your own SuperAdmin role' });
    }
    for (const status of ['suspended', 'deactivated']) {
      const res = await app.patch(`/api/admin/users/${superadminId}`, { status }, { token: superadmin });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'forbidden', message: 'Cannot suspend or deactivate your own account' });
    }
    const del = await app.request('DELETE', `/api/admin/users/${superadminId}`, { token: superadmin });
    expect(del.status).toBe(403);
    expect(del.body.message).toBe('Cannot suspend or deactivate your own account');
    // Your own name is fine, and keeps your session.
    expect((await app.patch(`/api/admin/users/${superadminId}`, { name: 'Demo Superadmin' }, { token: superadmin })).status).toBe(200);
    expect((await app.get('/api/auth/me', { token: superadmin })).status).toBe(200);
  });

  it('changes the role through PATCH /role, audited as admin.user.role_updated with the same diff', async () => {
    const user = await newUser(app, 'expert');
    await sleep(5);
    const res = await app.patch(`/api/admin/users/${user.id}/role`, { platformRole: 'ai_operator' }, { token: superadmin });
    expect(res.status).toBe(200);
    expect(res.body.platformRole).toBe('ai_operator');
    expect((await app.get('/api/auth/me', { token: user.token })).status).toBe(401);
    const [row] = await auditOf(app, superadmin, `action=admin.user.role_updated&resourceId=${user.id}`);
    expect(row).toMatchObject({
      userId: superadminId,
      resourceId: user.id,
      meta: { changes: { platformRole: { from: 'expert', to: 'ai_operator' }, passwordChangedAt: { to: 'revoked' } } },
    });
    expect(await auditOf(app, superadmin, `action=admin.user.updated&resourceId=${user.id}`)).toEqual([]);
  });

  it('sets a password through PATCH /password, revoking the sessions', async () => {
    const user = await newUser(app, 'expert');
    await sleep(5);
    expect((await app.patch(`/api/admin/users/${user.id}/password`, { password: 'short' }, { token: superadmin })).status).toBe(400);
    const res = await app.patch(`/api/admin/users/${user.id}/password`, { password: 'chosen-by-admin' }, { token: superadmin });
    expect(res.status).toBe(204);
    expect((await app.get('/api/auth/me', { token: user.token })).status).toBe(401);
    expect((await app.post('/api/auth/login', { email: user.email, password: 'chosen-by-admin' })).status).toBe(200);
  });

  describe('the only remaining SuperAdmin', () => {
    const principalOf = async (id: string): Promise<Principal> => {
      const record = (await app.running.app.get(UsersService).load(id))!;
      return { userId: id, email: record.email, name: record.name, platformRole: 'superadmin', orgMemberships: [], issuedAtMs: Date.now(), sessionId: INTERNAL_SESSION_ID, record };
    };

    it('refuses demoting the last SuperAdmin when the actor lost the role meanwhile (the race the lock serializes)', async () => {
      // B's request passed the guard as a SuperAdmin; before it runs, A demoted B. A is now the only one.
      const b = await newUser(app, 'superadmin');
      const staleB = await principalOf(b.id);
      const service = app.running.app.get(AdminUsersService);
      await service.setRole(await principalOf(superadminId), b.id, 'expert');
      await expect(service.setRole(staleB, superadminId, 'expert')).rejects.toMatchObject({ code: 'conflict', message: 'Cannot demote the only remaining SuperAdmin' });
      await expect(service.update(staleB, superadminId, { platformRole: 'account_manager' })).rejects.toMatchObject({ message: ADMIN_MESSAGES.onlySuperadmin });
    });

    it('refuses suspending or deactivating the last active SuperAdmin', async () => {
      const b = await newUser(app, 'superadmin');
      const staleB = await principalOf(b.id);
      const service = app.running.app.get(AdminUsersService);
      await service.update(await principalOf(superadminId), b.id, { status: 'suspended' });
      for (const status of ['suspended', 'deactivated'] as const) {
        await expect(service.update(staleB, superadminId, { status })).rejects.toMatchObject({ code: 'conflict', message: 'Cannot suspend or deactivate the only remaining SuperAdmin' });
      }
      await expect(service.remove(staleB, superadminId, false)).rejects.toMatchObject({ message: ADMIN_MESSAGES.onlyActiveSuperadmin });
      // B's real requests are refused anyway: a suspended user's token no longer works.
      expect((await app.patch(`/api/admin/users/${superadminId}`, { status: 'suspended' }, { token: b.token })).status).toBe(401);
    });

    it('never leaves the platform without a SuperAdmin when two demote each other at once', async () => {
      const b = await newUser(app, 'superadmin');
      const [ab, ba] = await Promise.all([
        app.patch(`/api/admin/users/${b.id}/role`, { platformRole: 'expert' }, { token: superadmin }),
        app.patch(`/api/admin/users/${superadminId}/role`, { platformRole: 'expert' }, { token: b.token }),
      ]);
      const users = app.running.app.get(UsersService);
      const activeSuperadmins = (await users.search({ role: 'superadmin' }, { limit: 200 })).filter((u) => u.status === 'active').map((u) => u.id);
      // Put the demo superadmin back first, so the tests that follow run whatever happened here.
      if (ba.status === 200) {
        await users.applyChanges(superadminId, { platformRole: 'superadmin' }, { revokeSessions: true });
        superadmin = await app.login(SUPERADMIN, PASSWORD);
      }
      const outcomes = [ab, ba].map((r) => r.status).sort();
      expect(outcomes[0]).toBe(200);
      // The loser either reached the guard after the winner's commit (its sessions revoked with its role: 401) or waited on the lock (409).
      expect([401, 409]).toContain(outcomes[1]);
      for (const r of [ab, ba]) if (r.status === 409) expect(r.body.message).toBe(ADMIN_MESSAGES.onlySuperadmin);
      expect(activeSuperadmins.some((id) => id === superadminId || id === b.id)).toBe(true);
    });
  });

  describe('password reset (spec 4.7, 7.2, 8)', () => {
    const codeMailedTo = async (email: string) => {
      const mail = await app.get(`/api/dev/mail?to=${encodeURIComponent(email)}&limit=1`);
      return /\b(\d{6})\b/.exec(mail.body[0].text)![1]!;
    };

    it('takes no body: an empty one sent as application/json is no body too (204)', async () => {
      const user = await newUser(app, 'org_member');
      const res = await app.request('POST', `/api/admin/users/${user.id}/password-reset`, { token: superadmin, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(204);
    });

    it('mails a 6-digit code the actor never sees; the user redeems it once; sessions end', async () => {
      const user = await newUser(app, 'org_member');
      const res = await app.post(`/api/admin/users/${user.id}/password-reset`, undefined, { token: superadmin });
      expect(res.status).toBe(204);
      expect(res.body).toBe('');
      const code = await codeMailedTo(user.email);
      const [row] = await auditOf(app, superadmin, `action=admin.user.password_reset_initiated&resourceId=${user.id}`);
      expect(row).toMatchObject({ userId: superadminId, resourceId: user.id });
      expect(JSON.stringify(row)).not.toContain(code);

      expect((await app.post('/api/auth/reset-password', { email: user.email, code: code === '000000' ? '111111' : '000000', password: 'my-new-password' })).status).toBe(401);
      expect((await app.post('/api/auth/reset-password', { email: user.email, code, password: 'short' })).status).toBe(400);
      const redeem = await app.post('/api/auth/reset-password', { email: user.email, code, password: 'my-new-password' });
      expect(redeem.status).toBe(204);
      expect((await app.get('/api/auth/me', { token: user.token })).status).toBe(401);
      expect((await app.post('/api/auth/login', { email: user.email, password: 'my-new-password' })).status).toBe(200);

      const again = await app.post('/api/auth/reset-password', { email: user.email, code, password: 'yet-another-password' });
      expect(again.status).toBe(401);
      expect((await app.post('/api/auth/login', { email: user.email, password: 'yet-another-password' })).status).toBe(401);
    });

    it('refuses a non-active target with 400 and the spec message', async () => {
      for (const status of ['suspended', 'deactivated'] as const) {
        const user = await newUser(app, 'expert');
        await app.patch(`/api/admin/users/${user.id}`, { status }, { token: superadmin });
        const res = await app.post(`/api/admin/users/${user.id}/password-reset`, undefined, { token: superadmin });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ statusCode: 400, code: 'bad_request', error: 'Bad Request', message: 'Cannot send a password reset to a non-active user' });
        expect((await app.get(`/api/dev/mail?to=${encodeURIComponent(user.email)}`)).body).toEqual([]);
      }
    });

    it('allows 5 initiations per actor per hour, then 429 with the spec 7.1 headers; another actor is not affected', async () => {
      const actor = await newUser(app, 'superadmin');
      const target = await newUser(app, 'expert');
      for (let i = 0; i < 5; i++) expect((await app.post(`/api/admin/users/${target.id}/password-reset`, undefined, { token: actor.token })).status).toBe(204);
      const sixth = await app.post(`/api/admin/users/${target.id}/password-reset`, undefined, { token: actor.token });
      expect(sixth.status).toBe(429);
      expect(sixth.body).toMatchObject({ statusCode: 429, code: 'rate_limit', error: 'ThrottlerException' });
      expect(sixth.headers.get('x-ratelimit-limit')).toBe('5');
      expect(sixth.headers.get('x-ratelimit-remaining')).toBe('0');
      const retryAfter = Number(sixth.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(3500);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(Number(sixth.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
      expect(await auditOf(app, superadmin, `action=admin.user.password_reset_initiated&actorId=${actor.id}`)).toHaveLength(5);
      expect((await app.get(`/api/dev/mail?to=${encodeURIComponent(target.email)}&limit=20`)).body).toHaveLength(5);
      // Counted per actor: the demo superadmin still may.
      expect((await app.post(`/api/admin/users/${target.id}/password-reset`, undefined, { token: superadmin })).status).toBe(204);
    });

    it('lets a code expire after 30 minutes', async () => {
      const user = await newUser(app, 'expert');
      const before = Date.now();
      await app.post(`/api/admin/users/${user.id}/password-reset`, undefined, { token: superadmin });
      const [row] = await app.running.dbService.root
        .select({ expiresAt: emailOtpCodes.expiresAt })
        .from(emailOtpCodes)
        .where(and(eq(emailOtpCodes.email, user.email), eq(emailOtpCodes.purpose, 'password_reset')));
      const ttl = row!.expiresAt.getTime() - before;
      expect(ttl).toBeGreaterThan(29 * 60_000);
      expect(ttl).toBeLessThanOrEqual(30 * 60_000 + 5_000);
    });
  });

  describe('removal (DELETE /admin/users/:id)', () => {
    it('anonymises by default: no email, no sign-in, out of the list, audited', async () => {
      const user = await newUser(app, 'expert', { name: 'To Be Removed' });
      const res = await app.request('DELETE', `/api/admin/users/${user.id}`, { token: superadmin });
      expect(res.status).toBe(204);
      const detail = (await app.get(`/api/admin/users/${user.id}`, { token: superadmin })).body;
      expect(detail).toMatchObject({ id: user.id, name: '', status: 'deactivated', removedAt: expect.any(String) });
      expect(detail.email).not.toContain(user.email);
      expect((await app.get('/api/auth/me', { token: user.token })).status).toBe(401);
      expect((await app.post('/api/auth/login', { email: user.email, password: 'a-good-password' })).status).toBe(401);
      expect((await app.get(`/api/admin/users?q=To Be Removed`, { token: superadmin })).body.items).toEqual([]);
      const [row] = await auditOf(app, superadmin, `action=admin.user.removed&resourceId=${user.id}`);
      expect(row).toMatchObject({ userId: superadminId, resourceId: user.id, meta: { mode: 'anonymised' } });
      expect(JSON.stringify(row)).not.toContain(user.email);
      // A removed user is history: no more edits; the address is free again.
      expect((await app.patch(`/api/admin/users/${user.id}`, { name: 'Back' }, { token: superadmin })).status).toBe(409);
      expect((await app.request('DELETE', `/api/admin/users/${user.id}`, { token: superadmin })).status).toBe(409);
      await newUser(app, 'expert', { email: user.email });
    });

    it('hard-deletes with ?hard=true outside production', async () => {
      const user = await newUser(app, 'expert');
      const res = await app.request('DELETE', `/api/admin/users/${user.id}?hard=true`, { token: superadmin });
      expect(res.status).toBe(204);
      expect((await app.get(`/api/admin/users/${user.id}`, { token: superadmin })).status).toBe(404);
      const [row] = await auditOf(app, superadmin, `action=admin.user.removed&resourceId=${user.id}`);
      expect(row!.meta).toMatchObject({ mode: 'hard' });
    });

    it('refuses the only owner of an org until ownership moves', async () => {
      const owner = (await app.get('/api/admin/users?q=org_admin@acme', { token: superadmin })).body.items[0];
      const res = await app.request('DELETE', `/api/admin/users/${owner.id}`, { token: superadmin });
      expect(res.status).toBe(409);
      expect(res.body.message).toMatch(/only owner of Acme Corporation/);
    });
  });

  it('lists the actions a user performed on their page (not the ones against them)', async () => {
    const actor = await newUser(app, 'superadmin');
    const target = await newUser(app, 'expert');
    await app.patch(`/api/admin/users/${target.id}`, { name: 'Renamed By Actor' }, { token: actor.token });
    const performed = await app.get(`/api/admin/users/${actor.id}/activity`, { token: superadmin });
    expect(performed.status).toBe(200);
    expect(performed.body.items.map((r: { action: string }) => r.action)).toEqual(expect.arrayContaining(['admin.user.updated', 'auth.login']));
    expect(performed.body.items.every((r: { userId: string }) => r.userId === actor.id)).toBe(true);
    const against = await app.get(`/api/admin/users/${target.id}/activity`, { token: superadmin });
    expect(against.body.items.map((r: { action: string }) => r.action)).not.toContain('admin.user.updated');
    // The platform-wide log shows both sides.
    const all = await auditOf(app, superadmin, `resourceId=${target.id}&actorId=${actor.id}`);
    expect(all.map((r) => r.action)).toContain('admin.user.updated');
    expect((await app.get('/api/admin/users/00000000-0000-4000-8000-000000000000/activity', { token: superadmin })).status).toBe(404);
  });
});

describe('user administration in production', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ seeded: false, env: productionEnv({ BOOTSTRAP_TOKEN: 'prod-token' }) });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('does not allow a hard delete (403), and still anonymises', async () => {
    const boot = await app.post('/api/bootstrap', { email: 'root@example.com', password: 'correct horse battery', name: 'Root' }, { headers: { 'x-bootstrap-token': 'prod-token' } });
    const token = boot.body.token as string;
    const user = await app.running.app.get(UsersService).create({ email: 'someone@example.com', platformRole: 'expert' });
    const hard = await app.request('DELETE', `/api/admin/users/${user.id}?hard=true`, { token });
    expect(hard.status).toBe(403);
    expect(hard.body).toMatchObject({ code: 'forbidden', message: 'Hard delete is not allowed in production' });
    expect((await app.get(`/api/admin/users/${user.id}`, { token })).status).toBe(200);
    expect((await app.request('DELETE', `/api/admin/users/${user.id}`, { token })).status).toBe(204);
  });
});
