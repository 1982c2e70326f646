import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { impersonationSessions } from '../../src/modules/admin/admin.tables.js';
import { authSessions } from '../../src/modules/auth/auth.tables.js';
import { SessionsService } from '../../src/modules/auth/index.js';
import { OrgsService } from '../../src/modules/orgs/index.js';
import { UsersService } from '../../src/modules/users/index.js';
import { claimsOf, sessionOf } from '../support/sessions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';

/** Polls an async condition (background work after commit) for up to 5 s. */
async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('impersonation (spec 5.8)', () => {
  let app: TestApp;
  let superadmin: string;
  let superadminId: string;
  let clientId: string;
  beforeAll(async () => {
    app = await startTestApp();
    superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    superadminId = (await app.get('/api/auth/me', { token: superadmin })).body.id;
    clientId = (await app.get('/api/auth/me', { token: await app.login('client@acme.demo.invalid', PASSWORD) })).body.id;
  });
  afterAll(async () => {
    await app?.close();
  });

  const start = (targetId: string, token = superadmin, reason: unknown = 'Reproducing a support ticket') => app.post(`/api/admin/impersonate/${targetId}`, { reason }, { token });
  const audit = async (query: string) => (await app.get(`/api/ops/audit?${query}`, { token: superadmin })).body.items as Array<Record<string, any>>;

  it('is for superadmins only and needs a reason', async () => {
    for (const email of ['account_manager@platform.demo.invalid', 'expert@platform.demo.invalid', 'org_admin@acme.demo.invalid']) {
      const res = await start(clientId, await app.login(email, PASSWORD));
      expect(res.status, email).toBe(403);
    }
    for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: 'x'.repeat(501) }]) {
      const res = await app.post(`/api/admin/impersonate/${clientId}`, body, { token: superadmin });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details[0].field).toBe('reason');
    }
    expect((await start('00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it("refuses a SuperAdmin target, yourself included: 'Cannot impersonate a Super Admin.'", async () => {
    const other = await app.running.app.get(UsersService).create({ email: 'second-root@example.com', name: 'Second', platformRole: 'superadmin' });
    for (const id of [other.id, superadminId]) {
      const res = await start(id);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'forbidden', message: 'Cannot impersonate a Super Admin.' });
    }
  });

  it('opens a session as the target: the token carries the impersonator, the reason is recorded', async () => {
    const res = await start(clientId);
    expect(res.status).toBe(201);
    const { token, impersonation } = res.body;
    expect(impersonation).toMatchObject({
      impersonator: { id: superadminId },
      target: { id: clientId, email: 'client@acme.demo.invalid' },
      reason: 'Reproducing a support ticket',
      active: true,
      endedAt: null,
    });
    const claims = claimsOf(token);
    expect(claims).toMatchObject({ sub: clientId, platformRole: 'org_member', impersonatorId: superadminId, impersonationId: impersonation.id });
    expect(claims.exp - claims.iat).toBe(3600);

    const me = await app.get('/api/auth/me', { token });
    expect(me.body).toMatchObject({ id: clientId, email: 'client@acme.demo.invalid', platformRole: 'org_member', impersonatorId: superadminId, landing: '/client/chat' });
    // The impersonated session has the target's powers, not the SuperAdmin's.
    expect((await app.get('/api/admin/users', { token })).status).toBe(403);

    const [started] = await audit(`action=admin.impersonation.started&resourceId=${clientId}`);
    expect(started).toMatchObject({ userId: superadminId, resourceId: clientId, meta: { reason: 'Reproducing a support ticket', impersonationId: impersonation.id } });

    const list = await app.get('/api/ops/impersonation?active=true', { token: superadmin });
    expect(list.status).toBe(200);
    expect(list.body.items.map((s: { id: string }) => s.id)).toContain(impersonation.id);
    expect((await app.get('/api/ops/impersonation', { token })).status).toBe(403);
  });

  it('audits every request made while impersonating, reads included, with both ids, the route and the target, success or failure', async () => {
    const { token, impersonation } = (await start(clientId)).body;
    expect((await app.patch('/api/auth/me', { name: 'Demo Client' }, { token })).status).toBe(200);
    expect((await app.patch('/api/auth/me', { name: 'x'.repeat(300) }, { token })).status).toBe(400);
    expect((await app.get('/api/auth/me', { token })).status).toBe(200);

    const rows = await audit(`action=impersonation.action&resourceId=${impersonation.id}`);
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row).toMatchObject({ userId: clientId, impersonatorId: superadminId, resourceId: impersonation.id });
      expect(row.meta).toMatchObject({ impersonationId: impersonation.id, route: '/api/auth/me', path: '/api/auth/me' });
    }
    expect(rows.map((r) => `${r.meta.method} ${r.meta.statusCode}`).sort()).toEqual(['GET 200', 'PATCH 200', 'PATCH 400']);

    // A read of another row names it; a refusal before the handler (a SuperAdmin route) is recorded too.
    const missing = '00000000-0000-4000-8000-00000000abcd';
    expect((await app.get(`/api/conversations/${missing}`, { token })).status).toBe(404);
    expect((await app.get('/api/admin/users', { token })).status).toBe(403);
    const [refused, read] = await audit(`action=impersonation.action&resourceId=${impersonation.id}`);
    expect(read!.meta).toMatchObject({ method: 'GET', route: '/api/conversations/:id', target: missing, statusCode: 404 });
    expect(refused!.meta).toMatchObject({ method: 'GET', route: '/api/admin/users', statusCode: 403 });

    // A domain action (an org-scoped one) carries the org too.
    const acme = (await app.get('/api/auth/me', { token })).body.orgMemberships[0].orgId;
    const created = await app.post('/api/conversations', { subject: 'Asked while impersonated', message: 'hello' }, { token });
    expect([200, 201]).toContain(created.status);
    const after = await audit(`action=impersonation.action&resourceId=${impersonation.id}`);
    expect(after[0]).toMatchObject({ userId: clientId, impersonatorId: superadminId, meta: { method: 'POST', route: '/api/conversations', statusCode: 201 } });
    expect(after).toHaveLength(7);
    expect(acme).toBeTruthy();
  });

  it('opens a sign-in session of its own and records the SuperAdmin session that started it', async () => {
    const { token, impersonation } = (await start(clientId)).body;
    const own = await sessionOf(app, token);
    expect(own).toMatchObject({ userId: clientId, method: 'impersonation', endedAt: null });
    expect(own!.expiresAt.toISOString()).toBe(impersonation.expiresAt);
    const [row] = await app.running.dbService.db.select().from(impersonationSessions).where(eq(impersonationSessions.id, impersonation.id));
    expect(row).toMatchObject({ sessionId: claimsOf(token).sid, impersonatorSessionId: claimsOf(superadmin).sid });
    await app.post('/api/admin/impersonate/stop', {}, { token });
    expect(await sessionOf(app, token)).toMatchObject({ endedAt: expect.any(Date), endReason: 'impersonation_stopped' });
  });

  it('stops: the impersonation token dies and the answer gives the SuperAdmin session back', async () => {
    const { token, impersonation } = (await start(clientId)).body;
    const stop = await app.post('/api/admin/impersonate/stop', {}, { token });
    expect(stop.status).toBe(200);
    expect(stop.body.ended).toEqual([expect.objectContaining({ id: impersonation.id, active: false, endedAt: expect.any(String) })]);
    // The SuperAdmin's own session, re-signed: same session, no impersonation in it.
    const back = stop.body.token as string;
    expect(claimsOf(back)).toMatchObject({ sub: superadminId, sid: claimsOf(superadmin).sid, platformRole: 'superadmin' });
    expect(claimsOf(back).impersonatorId).toBeUndefined();
    expect(claimsOf(back).exp).toBeLessThanOrEqual(claimsOf(superadmin).exp);
    expect((await app.get('/api/auth/me', { token: back })).body).toMatchObject({ id: superadminId, platformRole: 'superadmin' });
    const after = await app.get('/api/auth/me', { token });
    expect(after.status).toBe(401);
    expect(after.body.message).toBe('Session revoked, sign in again');
    const me = await app.get('/api/auth/me', { token: superadmin });
    expect(me.body).toMatchObject({ id: superadminId, platformRole: 'superadmin' });
    expect(me.body.impersonatorId).toBeUndefined();

    const [stopped] = await audit(`action=admin.impersonation.stopped&resourceId=${clientId}`);
    expect(stopped).toMatchObject({ userId: superadminId, resourceId: clientId, meta: { impersonationId: impersonation.id } });
    const ended = (await app.get('/api/ops/impersonation?active=false', { token: superadmin })).body.items;
    expect(ended.find((s: { id: string }) => s.id === impersonation.id)).toMatchObject({ active: false, reason: 'Reproducing a support ticket' });
    // Impersonation is the SuperAdmin's: anyone else's own session is refused (403), whatever the role.
    for (const email of ['client@acme.demo.invalid', 'account_manager@platform.demo.invalid']) {
      const refused = await app.post('/api/admin/impersonate/stop', {}, { token: await app.login(email, PASSWORD) });
      expect(refused.status, email).toBe(403);
      expect(refused.body.code).toBe('forbidden');
    }
  });

  it('lets the SuperAdmin end their sessions from their own session', async () => {
    const one = (await start(clientId)).body;
    const two = (await start(clientId)).body;
    const byId = await app.post('/api/admin/impersonate/stop', { impersonationId: one.impersonation.id }, { token: superadmin });
    expect(byId.body.ended.map((s: { id: string }) => s.id)).toEqual([one.impersonation.id]);
    expect((await app.get('/api/auth/me', { token: one.token })).status).toBe(401);
    expect((await app.get('/api/auth/me', { token: two.token })).status).toBe(200);
    const all = await app.post('/api/admin/impersonate/stop', {}, { token: superadmin });
    expect(all.body.ended.map((s: { id: string }) => s.id)).toContain(two.impersonation.id);
    expect((await app.get('/api/auth/me', { token: two.token })).status).toBe(401);
    expect((await app.post('/api/admin/impersonate/stop', { impersonationId: one.impersonation.id }, { token: superadmin })).status).toBe(404);
  });

  it("gives no session back once the SuperAdmin's session has ended or expired (the browser signs in again)", async () => {
    const loggedOut = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    const first = (await start(clientId, loggedOut)).body;
    expect((await app.post('/api/auth/logout', {}, { token: loggedOut })).status).toBe(204);
    const stopped = await app.post('/api/admin/impersonate/stop', {}, { token: first.token });
    expect(stopped.status).toBe(200);
    expect(stopped.body.ended.map((s: { id: string }) => s.id)).toEqual([first.impersonation.id]);
    expect(stopped.body.token).toBeUndefined();

    const expiring = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    const second = (await start(clientId, expiring)).body;
    await app.running.dbService.db
      .update(authSessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(authSessions.id, claimsOf(expiring).sid));
    const late = await app.post('/api/admin/impersonate/stop', {}, { token: second.token });
    expect(late.status).toBe(200);
    expect(late.body.token).toBeUndefined();
  });

  it('never gives back a session whose user changed the password since it began', async () => {
    const own = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    const record = (await app.running.app.get(UsersService).load(superadminId))!;
    const sessions = app.running.app.get(SessionsService);
    expect(await sessions.resume(claimsOf(own).sid, record)).toEqual(expect.any(String));
    expect(await sessions.resume(claimsOf(own).sid, { ...record, passwordChangedAt: new Date(Date.now() + 1000) })).toBeNull();
    expect(await sessions.resume(claimsOf(own).sid, { ...record, status: 'suspended' })).toBeNull();
    expect(await sessions.resume(claimsOf(own).sid, { ...record, id: clientId })).toBeNull();
  });

  it('ends with a sign-out of its own session, or of every session of the SuperAdmin', async () => {
    const listed = async (id: string) => ((await app.get('/api/ops/impersonation', { token: superadmin })).body.items as Array<{ id: string; active: boolean }>).find((s) => s.id === id);
    // Signing out while impersonating signs the SuperAdmin out too: the browser held no other token.
    const starter = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    const one = (await start(clientId, starter)).body;
    expect((await app.post('/api/auth/logout', {}, { token: one.token })).status).toBe(204);
    expect((await app.get('/api/auth/me', { token: one.token })).status).toBe(401);
    await waitFor(async () => (await listed(one.impersonation.id))?.active === false);
    await waitFor(async () => (await app.get('/api/auth/me', { token: starter })).status === 401);
    expect((await app.get('/api/auth/me', { token: superadmin })).status).toBe(200);

    const root = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    const two = (await start(clientId, root)).body;
    expect((await app.post('/api/auth/logout', { all: true }, { token: root })).status).toBe(204);
    await waitFor(async () => (await app.get('/api/auth/me', { token: two.token })).status === 401);
    // Every session of the SuperAdmin ended, the one of this file too.
    expect((await app.get('/api/auth/me', { token: superadmin })).status).toBe(401);
    superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    expect((await listed(two.impersonation.id))?.active).toBe(false);
  });

  it('ends when the impersonator is no longer an active SuperAdmin', async () => {
    const users = app.running.app.get(UsersService);
    const root = await users.create({ email: 'short-lived-root@example.com', name: 'Root Two', platformRole: 'superadmin', password: 'a-good-password' });
    const rootToken = await app.login('short-lived-root@example.com', 'a-good-password');
    const { token } = (await start(clientId, rootToken)).body;
    expect((await app.get('/api/auth/me', { token })).status).toBe(200);
    expect((await app.patch(`/api/admin/users/${root.id}`, { status: 'suspended' }, { token: superadmin })).status).toBe(200);
    expect((await app.get('/api/auth/me', { token })).status).toBe(401);
  });

  it("stops, and manages two-factor sign-in, while the impersonated client's org is suspended", async () => {
    const { token } = (await start(clientId)).body;
    const acme = (await app.get('/api/auth/me', { token })).body.orgMemberships[0].orgId as string;
    // The org's access gate closes (spec 3.6) as the billing module closes it.
    expect(await app.running.app.get(OrgsService).applyBillingTransition(acme, 'grace_elapsed')).toBe(true);
    expect((await app.get('/api/admin/members', { token })).body.code).toBe('org_suspended');
    expect((await app.get('/api/auth/2fa', { token })).status).toBe(200);
    expect((await app.post('/api/admin/impersonate/stop', {}, { token })).status).toBe(200);
    expect((await app.get('/api/auth/me', { token })).status).toBe(401);
    expect(await app.running.app.get(OrgsService).applyBillingTransition(acme, 'payment_recovered')).toBe(true);
  });

  it('refuses a token that claims an impersonation the service never opened', async () => {
    const record = (await app.running.app.get(UsersService).load(clientId))!;
    // A real, open session of the client: only the impersonation claims are made up.
    const { token: forged } = await app.running.app.get(SessionsService).open(
      {
        userId: clientId,
        email: record.email,
        name: record.name,
        platformRole: record.platformRole,
        orgMemberships: record.orgMemberships,
        impersonatorId: superadminId,
        impersonationId: '00000000-0000-4000-8000-000000000000',
      },
      'test',
    );
    expect((await app.get('/api/auth/me', { token: forged })).status).toBe(401);
  });
});
