import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationsService } from '../../src/modules/notifications/index.js';
import { OrgsService } from '../../src/modules/orgs/index.js';
import { UsersService } from '../../src/modules/users/index.js';
import { RealtimeService } from '../../src/platform/realtime/realtime.service.js';
import { collect, connectSocket, waitFor, type TestSocket } from '../support/sockets.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { unscopedOrg } from '../../src/platform/tenancy/org-scope.js';

const PASSWORD = 'demo1234';

describe('notifications REST (spec 4.5)', () => {
  let app: TestApp;
  let am: string;
  let client: string;
  let clientId: string;
  let admin: string;
  let adminId: string;
  beforeAll(async () => {
    app = await startTestApp();
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    client = await app.login('client@acme.demo.invalid', PASSWORD);
    admin = await app.login('org_admin@acme.demo.invalid', PASSWORD);
    clientId = (await app.get('/api/auth/me', { token: client })).body.id;
    adminId = (await app.get('/api/auth/me', { token: admin })).body.id;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('lets internal callers create one and returns the NotificationDto', async () => {
    const res = await app.post('/api/notifications', { userId: clientId, type: 'system.welcome', message: 'Welcome aboard', title: 'Hello', meta: { orgSlug: 'acme' } }, { token: am });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), userId: clientId, type: 'system.welcome', message: 'Welcome aboard', title: 'Hello', meta: { orgSlug: 'acme' }, readAt: null });
    expect(Object.keys(res.body).sort()).toEqual(['id', 'message', 'meta', 'readAt', 'title', 'type', 'userId']);
  });

  it('takes the optional title and meta as absent or null alike, stored as null', async () => {
    for (const extra of [{}, { title: null, meta: null }]) {
      const res = await app.post('/api/notifications', { userId: clientId, type: 'system.plain', message: 'No title', ...extra }, { token: am });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ title: null, meta: null });
    }
  });

  it('refuses POST from non-internal callers (403) and without a token (401)', async () => {
    const body = { userId: clientId, type: 'x', message: 'y' };
    for (const token of [client, admin, await app.login('expert@platform.demo.invalid', PASSWORD)]) {
      const res = await app.post('/api/notifications', body, { token });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
    }
    expect((await app.post('/api/notifications', body)).status).toBe(401);
  });

  it('validates CreateNotificationDto field by field', async () => {
    const res = await app.post('/api/notifications', { userId: 'nope', type: '', message: '', meta: 'text' }, { token: am });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['message', 'meta', 'type', 'userId']);
    expect((await app.post('/api/notifications', { userId: clientId, type: 't'.repeat(101), message: 'm' }, { token: am })).status).toBe(400);
  });

  it("lists only the caller's own, newest first, and does not dedupe by type (spec 6.1.3)", async () => {
    const users = app.running.app.get(UsersService);
    const fresh = await users.create({ email: 'inbox-order@example.com', platformRole: 'org_member', password: 'a-password' });
    const token = await app.login('inbox-order@example.com', 'a-password');
    for (const n of [1, 2, 3]) await app.post('/api/notifications', { userId: fresh.id, type: 'same.type', message: `m${n}` }, { token: am });
    await app.post('/api/notifications', { userId: clientId, type: 'same.type', message: 'not yours' }, { token: am });
    const res = await app.get('/api/notifications', { token });
    expect(res.status).toBe(200);
    expect(res.body.map((n: { message: string }) => n.message)).toEqual(['m3', 'm2', 'm1']);
  });

  it('defaults limit to 50, clamps it to 1..200 and pages by offset', async () => {
    const users = app.running.app.get(UsersService);
    const service = app.running.app.get(NotificationsService);
    const many = await users.create({ email: 'many@example.com', platformRole: 'org_member', password: 'a-password' });
    const token = await app.login('many@example.com', 'a-password');
    for (let i = 0; i < 205; i++) await service.notify({ userId: many.id, type: 'bulk', message: `n${i}` });
    const count = async (q: string) => (await app.get(`/api/notifications${q}`, { token })).body.length;
    expect(await count('')).toBe(50);
    expect(await count('?limit=0')).toBe(1);
    expect(await count('?limit=-5')).toBe(1);
    expect(await count('?limit=1000')).toBe(200);
    expect(await count('?limit=abc')).toBe(50);
    expect(await count('?limit=10&offset=200')).toBe(5);
    expect(await count('?offset=-3&limit=3')).toBe(3);
    const first = (await app.get('/api/notifications?limit=2', { token })).body;
    const second = (await app.get('/api/notifications?limit=2&offset=1', { token })).body;
    expect(first[0].message).toBe('n204');
    expect(second[0].id).toBe(first[1].id);
  });

  it('marks read for the recipient only, once, idempotently', async () => {
    const created = (await app.post('/api/notifications', { userId: clientId, type: 'system.read', message: 'read me' }, { token: am })).body;
    const other = await app.patch(`/api/notifications/${created.id}/read`, undefined, { token: admin });
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('forbidden');
    expect((await app.patch(`/api/notifications/${created.id}/read`)).status).toBe(401);
    const first = await app.patch(`/api/notifications/${created.id}/read`, undefined, { token: client });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: created.id, readAt: expect.any(String) });
    await new Promise((r) => setTimeout(r, 10));
    const second = await app.patch(`/api/notifications/${created.id}/read`, undefined, { token: client });
    expect(second.status).toBe(200);
    expect(second.body.readAt).toBe(first.body.readAt);
    expect((await app.patch('/api/notifications/00000000-0000-4000-8000-000000000000/read', undefined, { token: client })).status).toBe(404);
    expect(adminId).not.toBe(clientId);
  });
});

describe('real-time notifications (spec 5.5, 6.1)', () => {
  let app: TestApp;
  let am: string;
  const sockets: TestSocket[] = [];
  const open = async (...args: Parameters<typeof connectSocket>) => {
    const s = await connectSocket(...args);
    sockets.push(s);
    return s;
  };
  beforeAll(async () => {
    app = await startTestApp();
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await app?.close();
  });

  it('accepts the token in the auth object, the query and the Authorization header', async () => {
    const token = await app.login('client@acme.demo.invalid', PASSWORD);
    for (const placement of ['auth', 'query', 'header'] as const) {
      const s = await open(app.url, token, placement);
      expect(s.connected).toBe(true);
    }
  });

  it('refuses a socket without a token, with a forged one, and with a revoked one', async () => {
    await expect(connectSocket(app.url, undefined)).rejects.toThrow(/unauthorized/);
    await expect(connectSocket(app.url, 'not.a.token')).rejects.toThrow(/unauthorized/);
    const users = app.running.app.get(UsersService);
    const u = await users.create({ email: 'socket-revoked@example.com', platformRole: 'expert', password: 'first-password' });
    const token = await app.login('socket-revoked@example.com', 'first-password');
    await new Promise((r) => setTimeout(r, 5));
    await users.setPassword(u.id, 'second-password');
    await expect(connectSocket(app.url, token)).rejects.toThrow(/unauthorized/);
  });

  it("delivers a notification to its recipient's sockets only, with the REST payload", async () => {
    const clientToken = await app.login('client@acme.demo.invalid', PASSWORD);
    const adminToken = await app.login('org_admin@acme.demo.invalid', PASSWORD);
    const clientId = (await app.get('/api/auth/me', { token: clientToken })).body.id;
    const a = await open(app.url, clientToken);
    const b = await open(app.url, adminToken);
    const gotA = collect(a, 'notification:new');
    const gotB = collect(b, 'notification:new');
    const created = await app.post('/api/notifications', { userId: clientId, type: 'system.ping', message: 'ping', meta: { n: 1 } }, { token: am });
    await waitFor(() => gotA.length === 1);
    expect(gotA[0]).toEqual(created.body);
    const listed = (await app.get('/api/notifications?limit=1', { token: clientToken })).body[0];
    expect(gotA[0]).toEqual(listed);
    await new Promise((r) => setTimeout(r, 200));
    expect(gotB).toHaveLength(0);
    expect(gotA).toHaveLength(1);
  });

  it('puts sockets in the rooms of spec 6.1 and keeps client roles out of org rooms', async () => {
    const realtime = app.running.app.get(RealtimeService);
    const acme = (await app.running.app.get(OrgsService).findBySlug('acme'))!;
    const users = app.running.app.get(UsersService);
    // An internal user who holds an org membership gets that org's room.
    const opsUser = await users.create({ email: 'ops-member@example.com', platformRole: 'ai_operator', password: 'a-password' });
    await users.addMembership(unscopedOrg(acme.id, 'test setup'), opsUser.id, 'member');
    const ops = await open(app.url, await app.login('ops-member@example.com', 'a-password'));
    const client = await open(app.url, await app.login('client@acme.demo.invalid', PASSWORD));
    const expert = await open(app.url, await app.login('expert@platform.demo.invalid', PASSWORD));
    const superadmin = await open(app.url, await app.login('superadmin@platform.demo.invalid', PASSWORD));
    // Beside the rooms of spec 6.1, each socket is in its session's room (server-side only).
    const roomsOf = (s: TestSocket) =>
      realtime
        .localRoomsOf(s.id!)
        .filter((r) => !r.startsWith('session:'))
        .sort();
    expect(roomsOf(ops)).toEqual(['audience:staff', `org:${acme.id}`, `user:${opsUser.id}`]);
    expect(roomsOf(client)).toEqual(['audience:client', expect.stringMatching(/^user:/)]);
    // The demo Expert's org-wide grant on acme puts its socket in acme's room and acme's part of `experts`.
    expect(roomsOf(expert)).toEqual(['audience:staff', 'experts', `experts:${acme.id}`, `org:${acme.id}`, expect.stringMatching(/^user:/)]);
    expect(roomsOf(superadmin)).toEqual(['audience:staff', 'experts', 'experts:all', expect.stringMatching(/^user:/)]);

    const clientEvents = collect(client, 'agent_message_sent');
    const opsEvents = collect(ops, 'agent_message_sent');
    const payload = {
      conversationId: '00000000-0000-4000-8000-000000000001',
      orgId: acme.id,
      message: {
        id: '00000000-0000-4000-8000-000000000002',
        conversationId: '00000000-0000-4000-8000-000000000001',
        role: 'specialist' as const,
        sender_id: null,
        content: 'hi',
        is_internal: false,
        createdAt: new Date().toISOString(),
        correctedAt: null,
        attachments: [],
      },
    };
    realtime.toOrg(acme.id, 'agent_message_sent', payload);
    await waitFor(() => opsEvents.length === 1);
    expect(opsEvents[0]).toEqual(payload);
    await new Promise((r) => setTimeout(r, 200));
    expect(clientEvents).toHaveLength(0);
  });

  it('refuses join_conversation for an unknown thread and a malformed id', async () => {
    const s = await open(app.url, await app.login('expert@platform.demo.invalid', PASSWORD));
    const ack = await s.emitWithAck('join_conversation', '00000000-0000-4000-8000-000000000003');
    expect(ack).toEqual({ ok: false, error: 'forbidden' });
    expect(await s.emitWithAck('join_conversation', 'not-an-id')).toEqual({ ok: false, error: 'invalid' });
  });

  it('keeps the row when the push fails, for the next GET (spec 6.1.1)', async () => {
    const realtime = app.running.app.get(RealtimeService);
    const service = app.running.app.get(NotificationsService);
    const clientToken = await app.login('client@acme.demo.invalid', PASSWORD);
    const clientId = (await app.get('/api/auth/me', { token: clientToken })).body.id;
    const original = realtime.toUser.bind(realtime);
    realtime.toUser = () => {
      throw new Error('socket layer down');
    };
    try {
      const dto = await service.notify({ userId: clientId, type: 'system.lost-push', message: 'still here' });
      await new Promise((r) => setTimeout(r, 50));
      const listed = (await app.get('/api/notifications?limit=5', { token: clientToken })).body;
      expect(listed.map((n: { id: string }) => n.id)).toContain(dto.id);
    } finally {
      realtime.toUser = original;
    }
  });
});

describe('notifying several recipients', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is best-effort per recipient: one failure does not block the rest', async () => {
    const { NotificationsRepository } = await import('../../src/modules/notifications/notifications.repository.js');
    const repo = app.running.app.get(NotificationsRepository);
    const service = app.running.app.get(NotificationsService);
    const users = app.running.app.get(UsersService);
    const ids = await Promise.all(['a', 'b', 'c'].map(async (n) => (await users.create({ email: `each-${n}@example.com`, platformRole: 'org_member' })).id));
    const original = repo.insert.bind(repo);
    repo.insert = async (values) => {
      if (values.recipientUserId === ids[1]) throw new Error('disk full for this one');
      return original(values);
    };
    try {
      const result = await service.notifyEach([ids[0]!, ids[1]!, ids[2]!, ids[0]!], { type: 'billing.payment_failed', message: 'Payment failed' });
      expect(result.failed).toEqual([ids[1]]);
      expect(result.sent.map((n) => n.userId)).toEqual([ids[0], ids[2]]);
    } finally {
      repo.insert = original;
    }
    expect(await service.list(ids[2]!, { limit: 10, offset: 0 })).toHaveLength(1);
  });
});
