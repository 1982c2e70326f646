import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SOCKETS_PER_USER } from '../../src/contracts/realtime.js';
import { AuthService } from '../../src/modules/auth/index.js';
import { authSessions } from '../../src/modules/auth/auth.tables.js';
import { OrgsService } from '../../src/modules/orgs/index.js';
import { UsersService } from '../../src/modules/users/index.js';
import { AccessEvents } from '../../src/platform/auth/access-events.js';
import { RequestAuthenticator } from '../../src/platform/auth/request-auth.js';
import { setLogDestination } from '../../src/platform/observability/logger.js';
import { collect, connectSocket, disconnected, messageTexts, refusalOf, sessionTokens, waitFor, type TestSocket } from '../support/sockets.js';
import { claimsOf } from '../support/sessions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { unscopedOrg } from '../../src/platform/tenancy/org-scope.js';

const PASSWORD = 'demo1234';
const FRESH_PASSWORD = 'a-fresh-password';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Person {
  id: string;
  email: string;
  token: string;
}

describe('sockets follow access changes (API-MAP "Sessions, sockets and hardening", spec 5.5, 6.1)', () => {
  let app: TestApp;
  let superadmin: string;
  let am: string;
  let acmeId: string;
  let n = 0;
  const sockets: TestSocket[] = [];
  const open = async (token: string) => {
    const s = await connectSocket(app.url, token);
    sockets.push(s);
    return s;
  };

  /** A new user (a member of acme when `orgRole` is given), signed in. */
  const person = async (platformRole: 'org_member' | 'expert', orgRole?: 'member' | 'admin'): Promise<Person> => {
    const users = app.running.app.get(UsersService);
    const email = `realtime-${++n}@example.com`;
    const user = await users.create({ email, platformRole, password: FRESH_PASSWORD });
    if (orgRole) await users.addMembership(unscopedOrg(acmeId, 'test setup'), user.id, orgRole);
    return { id: user.id, email, token: await app.login(email, FRESH_PASSWORD) };
  };

  /**
   * A thread of acme that a fresh member writes in, and the victim's socket following it (streamed
   * the first message). Returns what it takes to write more and to see what the victim is streamed.
   */
  const following = async (victim: Person) => {
    const writer = await person('org_member', 'member');
    const conversationId = (await app.post('/api/conversations', { message: 'opening' }, { token: writer.token })).body.id as string;
    const socket = await open(victim.token);
    expect(await socket.emitWithAck('join_conversation', conversationId)).toEqual({ ok: true });
    const texts = messageTexts(socket);
    const say = async (content: string) => expect((await app.post(`/api/conversations/${conversationId}/messages`, { content }, { token: writer.token })).status).toBe(201);
    await say('before the change');
    await waitFor(() => texts.includes('before the change'));
    return { socket, texts, say, conversationId };
  };

  /** Within 5 s of the change, a new message no longer reaches the socket (which stays connected). */
  const streamingEnds = async (say: (content: string) => Promise<void>, texts: string[], since: number) => {
    for (let probe = 0; ; probe++) {
      await say(`probe ${probe}`);
      await sleep(250);
      if (!texts.includes(`probe ${probe}`)) break;
      expect(Date.now() - since).toBeLessThan(5000);
    }
    expect(Date.now() - since).toBeLessThan(5000);
    await say('after the change');
    await sleep(500);
    expect(texts).not.toContain('after the change');
  };

  beforeAll(async () => {
    app = await startTestApp();
    superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    acmeId = (await app.running.app.get(OrgsService).findBySlug('acme'))!.id;
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await app?.close();
  });

  for (const status of ['suspended', 'deactivated'] as const) {
    it(`disconnects the sockets of a user ${status} within 5 s`, async () => {
      const victim = await person('org_member', 'member');
      const { socket, texts, say } = await following(victim);
      const other = await open(victim.token);
      const since = Date.now();
      expect((await app.patch(`/api/admin/users/${victim.id}`, { status }, { token: superadmin })).status).toBe(200);
      await Promise.all([disconnected(socket), disconnected(other)]);
      expect(Date.now() - since).toBeLessThan(5000);
      await say('after the change');
      await sleep(300);
      expect(texts).not.toContain('after the change');
      expect((await refusalOf(app.url, victim.token)).data).toEqual({ code: 'unauthorized', reason: expect.any(String) });
    });
  }

  it('disconnects the sockets of a user whose password a SuperAdmin sets, within 5 s', async () => {
    const victim = await person('org_member', 'member');
    const { socket } = await following(victim);
    const since = Date.now();
    expect((await app.patch(`/api/admin/users/${victim.id}/password`, { password: 'another-password' }, { token: superadmin })).status).toBe(204);
    await disconnected(socket);
    expect(Date.now() - since).toBeLessThan(5000);
  });

  it('disconnects the sockets of a user who redeems a password reset code, within 5 s', async () => {
    const victim = await person('org_member', 'member');
    const { socket } = await following(victim);
    expect((await app.post(`/api/admin/users/${victim.id}/password-reset`, undefined, { token: superadmin })).status).toBe(204);
    const mail = await app.get(`/api/dev/mail?to=${encodeURIComponent(victim.email)}&limit=1`);
    const code = /\b(\d{6})\b/.exec(mail.body[0].text)![1]!;
    const since = Date.now();
    expect((await app.post('/api/auth/reset-password', { email: victim.email, code, password: 'my-new-password' })).status).toBe(204);
    await disconnected(socket);
    expect(Date.now() - since).toBeLessThan(5000);
  });

  it("takes a removed member's socket out of the org's threads within 5 s and refuses join_conversation there", async () => {
    const victim = await person('org_member', 'member');
    const { socket, texts, say, conversationId } = await following(victim);
    const since = Date.now();
    expect((await app.request('DELETE', `/api/orgs/${acmeId}/members/${victim.id}`, { token: superadmin })).status).toBe(204);
    await streamingEnds(say, texts, since);
    expect(socket.connected).toBe(true);
    expect(await socket.emitWithAck('join_conversation', conversationId)).toEqual({ ok: false, error: 'forbidden' });
  });

  it('keeps streaming to a member whose org role changes (the reach stays)', async () => {
    const victim = await person('org_member', 'member');
    const { socket, texts, say } = await following(victim);
    const orgAdmin = await app.login('org_admin@acme.demo.invalid', PASSWORD);
    expect((await app.patch(`/api/admin/members/${victim.id}/role`, { orgRole: 'admin' }, { token: orgAdmin })).status).toBe(200);
    await sleep(300);
    await say('after the role change');
    await waitFor(() => texts.includes('after the role change'));
    expect(socket.connected).toBe(true);
  });

  it("takes an Expert's socket out of an org's rooms and threads within 5 s of the grant's removal", async () => {
    const expert = await person('expert');
    const grant = await app.post(`/api/am/orgs/${acmeId}/expert-grants`, { expertId: expert.id, scope: 'org' }, { token: am });
    expect(grant.status).toBe(201);
    // The grant puts the socket in the org's room as well as letting it follow the thread.
    const { socket, texts, say, conversationId } = await following(expert);
    const orgRoomMessages = collect(socket, 'user_message_received');
    expect(await socket.emitWithAck('leave_conversation', conversationId)).toEqual({ ok: true });
    await say('through the org room');
    await waitFor(() => orgRoomMessages.some((m) => m.message.content === 'through the org room'));
    expect(await socket.emitWithAck('join_conversation', conversationId)).toEqual({ ok: true });

    const since = Date.now();
    expect((await app.request('DELETE', `/api/am/orgs/${acmeId}/expert-grants/${grant.body.id}`, { token: am })).status).toBe(204);
    await streamingEnds(say, texts, since);
    expect(await socket.emitWithAck('join_conversation', conversationId)).toEqual({ ok: false, error: 'forbidden' });
  });

  it("joins an Expert's open socket to an org's rooms when a grant is added", async () => {
    const expert = await person('expert');
    const socket = await open(expert.token);
    const queue = collect(socket, 'expert_queue_item_added');
    const since = Date.now();
    expect((await app.post(`/api/am/orgs/${acmeId}/expert-grants`, { expertId: expert.id, scope: 'org' }, { token: am })).status).toBe(201);
    const client = await person('org_member', 'member');
    for (;;) {
      const conversationId = (await app.post('/api/conversations', { message: 'hi' }, { token: client.token })).body.id as string;
      expect((await app.post(`/api/conversations/${conversationId}/escalate`, { reason: 'a person, please' }, { token: client.token })).status).toBe(201);
      await sleep(250);
      if (queue.some((item) => item.conversationId === conversationId)) break;
      expect(Date.now() - since).toBeLessThan(5000);
    }
  });

  it("moves the org room from the former assigned AM's socket to the new one's when a superadmin reassigns the org", async () => {
    const users = app.running.app.get(UsersService);
    const newAm = await users.create({ email: 'second-am@example.com', platformRole: 'account_manager', password: FRESH_PASSWORD });
    const before = await app.get(`/api/am/orgs/${acmeId}`, { token: am });
    const formerSocket = await open(await app.login((await users.findById(before.body.assignedAmId))!.email, PASSWORD));
    const newSocket = await open(await app.login('second-am@example.com', FRESH_PASSWORD));
    const former = collect(formerSocket, 'user_message_received');
    const next = collect(newSocket, 'user_message_received');
    const writer = await person('org_member', 'member');
    const conversationId = (await app.post('/api/conversations', { message: 'opening' }, { token: writer.token })).body.id as string;
    const say = async (content: string) => expect((await app.post(`/api/conversations/${conversationId}/messages`, { content }, { token: writer.token })).status).toBe(201);
    const got = (seen: typeof former, content: string) => seen.some((e) => e.message.content === content);
    await say('before the reassignment');
    await waitFor(() => got(former, 'before the reassignment'));
    expect(got(next, 'before the reassignment')).toBe(false);

    const since = Date.now();
    expect((await app.patch(`/api/am/orgs/${acmeId}`, { assignedAmId: newAm.id }, { token: superadmin })).status).toBe(200);
    for (let probe = 0; ; probe++) {
      await say(`probe ${probe}`);
      await sleep(250);
      if (!got(former, `probe ${probe}`) && got(next, `probe ${probe}`)) break;
      expect(Date.now() - since).toBeLessThan(5000);
    }
    // Give acme back to the demo AM for the tests after this one.
    expect((await app.patch(`/api/am/orgs/${acmeId}`, { assignedAmId: before.body.assignedAmId }, { token: superadmin })).status).toBe(200);
  });

  it('disconnects a socket whose handshake read the user just before a suspension committed', async () => {
    const victim = await person('org_member', 'member');
    const authenticator = app.running.app.get(RequestAuthenticator);
    const original = authenticator.authenticate.bind(authenticator);
    let suspended = false;
    authenticator.authenticate = async (token) => {
      const outcome = await original(token);
      if (!suspended && outcome.principal?.userId === victim.id) {
        suspended = true;
        // The suspension commits (and is announced) while this handshake still holds the user as active.
        await app.running.app.get(UsersService).setStatus(victim.id, 'suspended');
        await sleep(100);
      }
      return outcome;
    };
    try {
      const socket = await open(victim.token);
      await disconnected(socket);
    } finally {
      authenticator.authenticate = original;
    }
    expect(suspended).toBe(true);
  });

  it('drops the connection (the client reconnects and is checked afresh) when the access cannot be read after a change', async () => {
    const victim = await person('org_member', 'member');
    const socket = await open(victim.token);
    const reasons: string[] = [];
    socket.on('disconnect', (reason) => reasons.push(reason));
    const authenticator = app.running.app.get(RequestAuthenticator);
    const original = authenticator.authenticate.bind(authenticator);
    authenticator.authenticate = async () => {
      throw new Error('database unreachable');
    };
    try {
      app.running.app.get(AccessEvents).emit({ kind: 'reach_changed', userId: victim.id });
      await disconnected(socket);
    } finally {
      authenticator.authenticate = original;
    }
    // Not 'io server disconnect' (which a client does not retry): a transport close, which it does.
    expect(reasons).toEqual(['transport close']);
  });

  it('disconnects, at logout, the sockets of that session only, within 5 s', async () => {
    const victim = await person('org_member', 'member');
    const [ending, staying] = await sessionTokens(app, victim.email, FRESH_PASSWORD, 2);
    const { socket, texts, say } = await following({ ...victim, token: ending!.token });
    const stayingSocket = await open(staying!.token);
    const since = Date.now();
    expect((await app.post('/api/auth/logout', {}, { token: ending!.token })).status).toBe(204);
    await disconnected(socket);
    expect(Date.now() - since).toBeLessThan(5000);
    await say('after the logout');
    await sleep(300);
    expect(texts).not.toContain('after the logout');
    expect(stayingSocket.connected).toBe(true);
    expect((await refusalOf(app.url, ending!.token)).data.code).toBe('unauthorized');
  });

  it('disconnects, at logout of every session, all the sockets of the user within 5 s', async () => {
    const victim = await person('org_member', 'member');
    const [first, second] = await sessionTokens(app, victim.email, FRESH_PASSWORD, 2);
    const sockets = [await open(first!.token), await open(second!.token)];
    const since = Date.now();
    expect((await app.post('/api/auth/logout', { all: true }, { token: first!.token })).status).toBe(204);
    await Promise.all(sockets.map((s) => disconnected(s)));
    expect(Date.now() - since).toBeLessThan(5000);
  });
});

describe('the experts room (spec 6.1) and joins while impersonating (spec 5.8)', () => {
  let app: TestApp;
  const sockets: TestSocket[] = [];
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await app?.close();
  });

  it("carries an org's queue events only to the Experts covering it and to superadmins; a removed grant stops them within 5 s", async () => {
    const am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    const acmeId = (await app.running.app.get(OrgsService).findBySlug('acme'))!.id;
    const users = app.running.app.get(UsersService);
    const leaving = await users.create({ email: 'leaving-expert@example.com', platformRole: 'expert', password: FRESH_PASSWORD });
    const grant = (await app.post(`/api/am/orgs/${acmeId}/expert-grants`, { expertId: leaving.id, scope: 'org' }, { token: am })).body;
    const connect = async (email: string, password = PASSWORD) => {
      const s = await connectSocket(app.url, await app.login(email, password));
      sockets.push(s);
      return collect(s, 'expert_queue_item_added');
    };
    // expert@ has an org-wide grant on acme; expert2@ has none there.
    const covering = await connect('expert@platform.demo.invalid');
    const uncovering = await connect('expert2@platform.demo.invalid');
    const superadmin = await connect('superadmin@platform.demo.invalid');
    const removed = await connect('leaving-expert@example.com', FRESH_PASSWORD);

    const client = await app.login('client@acme.demo.invalid', PASSWORD);
    const escalate = async () => {
      const conversationId = (await app.post('/api/conversations', { message: 'I need a person' }, { token: client })).body.id as string;
      expect((await app.post(`/api/conversations/${conversationId}/escalate`, { reason: 'Please call me' }, { token: client })).status).toBe(201);
      return conversationId;
    };
    const has = (seen: Array<{ conversationId: string; orgId: string }>, id: string) => seen.some((item) => item.conversationId === id && item.orgId === acmeId);

    const first = await escalate();
    await waitFor(() => has(covering, first) && has(superadmin, first) && has(removed, first));
    await sleep(300);
    expect(has(uncovering, first)).toBe(false);

    const since = Date.now();
    expect((await app.request('DELETE', `/api/am/orgs/${acmeId}/expert-grants/${grant.id}`, { token: am })).status).toBe(204);
    // Within 5 s, the next item no longer reaches the Expert whose grant went.
    let next: string;
    do {
      next = await escalate();
      await waitFor(() => has(covering, next));
      await sleep(200);
    } while (has(removed, next) && Date.now() - since < 5000);
    expect(has(removed, next)).toBe(false);
    expect(has(uncovering, next)).toBe(false);
    expect(has(superadmin, next)).toBe(true);
  });

  it('leaves an impersonation.action audit row for every join, with the conversation id', async () => {
    const superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    const client = await app.login('client@acme.demo.invalid', PASSWORD);
    const clientId = (await app.get('/api/auth/me', { token: client })).body.id as string;
    const superadminId = (await app.get('/api/auth/me', { token: superadmin })).body.id as string;
    const conversation = (await app.post('/api/conversations', { message: 'mine' }, { token: client })).body as { id: string; orgId: string };
    const { token, impersonation } = (await app.post(`/api/admin/impersonate/${clientId}`, { reason: 'Reproducing a support ticket' }, { token: superadmin })).body;
    const socket = await connectSocket(app.url, token);
    sockets.push(socket);
    const unknown = '00000000-0000-4000-8000-00000000beef';
    expect(await socket.emitWithAck('join_conversation', conversation.id)).toEqual({ ok: true });
    expect(await socket.emitWithAck('join_conversation', unknown)).toEqual({ ok: false, error: 'forbidden' });

    const rows = (await app.get(`/api/ops/audit?action=impersonation.action&resourceId=${impersonation.id}`, { token: superadmin })).body.items as Array<{
      userId: string;
      impersonatorId: string;
      orgId: string | null;
      meta: Record<string, unknown>;
    }>;
    const joins = rows.filter((r) => r.meta.route === 'join_conversation');
    expect(joins).toHaveLength(2);
    const byConversation = Object.fromEntries(joins.map((r) => [r.meta.conversationId as string, r]));
    expect(byConversation[conversation.id]).toMatchObject({
      userId: clientId,
      impersonatorId: superadminId,
      orgId: conversation.orgId,
      meta: { impersonationId: impersonation.id, method: 'SOCKET', target: conversation.id, statusCode: 200 },
    });
    expect(byConversation[unknown]).toMatchObject({ userId: clientId, impersonatorId: superadminId, orgId: null, meta: { impersonationId: impersonation.id, statusCode: 403 } });

    // A join without impersonation leaves none.
    const own = await connectSocket(app.url, client);
    sockets.push(own);
    expect(await own.emitWithAck('join_conversation', conversation.id)).toEqual({ ok: true });
    const all = (await app.get(`/api/ops/audit?action=impersonation.action&actorId=${clientId}`, { token: superadmin })).body.items as Array<{ meta: Record<string, unknown> }>;
    expect(all.filter((r) => r.meta.route === 'join_conversation')).toHaveLength(2);
  });

  it('closes the socket of a stopped impersonation within 5 s', async () => {
    const superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    const clientId = (await app.running.app.get(UsersService).findByEmail('client@acme.demo.invalid'))!.id;
    const { token } = (await app.post(`/api/admin/impersonate/${clientId}`, { reason: 'Reproducing a support ticket' }, { token: superadmin })).body;
    const socket = await connectSocket(app.url, token);
    sockets.push(socket);
    const since = Date.now();
    expect((await app.post('/api/admin/impersonate/stop', {}, { token })).status).toBe(200);
    await disconnected(socket);
    expect(Date.now() - since).toBeLessThan(5000);
  });

  it('checks the session again at each join: one that ended unannounced refuses the join and closes the socket', async () => {
    const client = await app.login('client@acme.demo.invalid', PASSWORD);
    const conversationId = (await app.post('/api/conversations', { message: 'mine too' }, { token: client })).body.id as string;
    const socket = await connectSocket(app.url, client);
    sockets.push(socket);
    // Ended in the database only: no access event reaches the socket layer.
    await app.running.dbService.db
      .update(authSessions)
      .set({ endedAt: new Date(), endReason: 'logout' })
      .where(eq(authSessions.id, claimsOf(client).sid));
    expect(await socket.emitWithAck('join_conversation', conversationId)).toEqual({ ok: false, error: 'forbidden' });
    await disconnected(socket);
  });
});

describe('socket handshakes: 20 per user, the per-IP throttle, refusals logged', () => {
  let app: TestApp;
  let throttled: TestApp;
  const lines: string[] = [];
  const sockets: TestSocket[] = [];
  const THROTTLE = 5;
  beforeAll(async () => {
    setLogDestination({ write: (line: string) => void lines.push(line) });
    app = await startTestApp({ env: { LOG_LEVEL: 'warn' } });
    throttled = await startTestApp({ env: { THROTTLE_IP_PER_MINUTE: String(THROTTLE), LOG_LEVEL: 'warn' } });
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await app?.close();
    await throttled?.close();
    setLogDestination(undefined);
  });

  /** A session opened directly (signing in is an anonymous request, counted per IP too). */
  const tokenOf = async (on: TestApp, email: string) => {
    const user = (await on.running.app.get(UsersService).findByEmail(email))!;
    return (await on.running.app.get(AuthService).startSession(user, 'test')).token;
  };
  const refusalLines = (refusal: string) => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === 'security.socket_refused' && l.refusal === refusal);

  it(`refuses the ${MAX_SOCKETS_PER_USER + 1}st socket of a user with too_many_sockets, concurrent handshakes included`, async () => {
    const token = await tokenOf(app, 'client@acme.demo.invalid');
    const mine: TestSocket[] = [];
    for (let i = 0; i < MAX_SOCKETS_PER_USER; i++) mine.push(await connectSocket(app.url, token));
    sockets.push(...mine);
    const refused = await refusalOf(app.url, token);
    expect(refused.data).toEqual({ code: 'too_many_sockets', limit: MAX_SOCKETS_PER_USER });
    expect(refused.message).toMatch(/20 open sockets/);
    // Another user is not affected.
    sockets.push(await connectSocket(app.url, await tokenOf(app, 'org_admin@acme.demo.invalid')));
    // Two close: of five handshakes at once, two get in.
    mine.pop()!.close();
    mine.pop()!.close();
    await sleep(300);
    const burst = await Promise.allSettled(Array.from({ length: 5 }, () => connectSocket(app.url, token)));
    for (const r of burst) if (r.status === 'fulfilled') sockets.push(r.value);
    expect(burst.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    expect(refusalLines('too_many_sockets')[0]).toMatchObject({ userId: expect.any(String), ip: expect.any(String), level: 40 });
  });

  it('keeps no socket on the default namespace: without a token refused as on /notifications, with one sent there', async () => {
    expect((await refusalOf(app.url, undefined, '/')).data).toEqual({ code: 'unauthorized', reason: 'missing' });
    expect((await refusalOf(app.url, 'not-a-token', '/')).data).toEqual({ code: 'unauthorized', reason: expect.any(String) });
    const token = await tokenOf(app, 'org_admin@acme.demo.invalid');
    const refused = await refusalOf(app.url, token, '/');
    expect(refused.data).toEqual({ code: 'invalid_namespace', namespace: '/' });
    expect(refused.message).toContain('/notifications');
    expect(refusalLines('invalid_namespace')[0]).toMatchObject({ userId: expect.any(String), ip: expect.any(String) });
    expect(lines.join('\n')).not.toContain(token);
    // The same token is taken on /notifications.
    sockets.push(await connectSocket(app.url, token));
  });

  it('counts handshakes against the per-IP throttle, with anonymous HTTP requests, and refuses the rest with rate_limit', async () => {
    const token = await tokenOf(throttled, 'expert@platform.demo.invalid');
    for (let i = 0; i < THROTTLE - 1; i++) (await connectSocket(throttled.url, token)).close();
    expect((await throttled.get('/api/dev/mail?limit=1')).status).toBe(200);
    const refused = await refusalOf(throttled.url, token);
    expect(refused.data).toEqual({ code: 'rate_limit', retryAfterS: expect.any(Number) });
    expect(refused.data.code === 'rate_limit' && refused.data.retryAfterS).toBeGreaterThan(0);
    expect((await throttled.get('/api/dev/mail?limit=1')).status).toBe(429);
    expect(refusalLines('rate_limit')[0]).toMatchObject({ ip: expect.any(String), level: 40 });
    expect(lines.join('\n')).not.toContain(token);
  });
});
