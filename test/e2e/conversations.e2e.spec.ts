import { createServer, type Server } from 'node:http';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AUDIENCE_CLIENT_ROOM, AUDIENCE_STAFF_ROOM } from '../../src/contracts/realtime.js';
import { AgentService } from '../../src/modules/agent/index.js';
import { ConversationsRepository } from '../../src/modules/conversations/conversations.repository.js';
import { ConversationsService } from '../../src/modules/conversations/index.js';
import { Clock } from '../../src/platform/clock/clock.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { RealtimeService } from '../../src/platform/realtime/realtime.service.js';
import { factoriesOf } from '../support/factories.js';
import { collect, connectSocket, waitFor, type TestSocket } from '../support/sockets.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';

/** Rows of a raw query, on pg and PGlite alike. */
async function rows<T>(query: Promise<unknown>): Promise<T[]> {
  const result = await query;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

interface Ctx {
  app: TestApp;
  client: string;
  orgAdmin: string;
  expert: string;
  expert2: string;
  am: string;
  superadmin: string;
  acmeId: string;
}

async function context(app: TestApp): Promise<Ctx> {
  const [client, orgAdmin, expert, expert2, am, superadmin] = await Promise.all(
    [
      'client@acme.demo.invalid',
      'org_admin@acme.demo.invalid',
      'expert@platform.demo.invalid',
      'expert2@platform.demo.invalid',
      'account_manager@platform.demo.invalid',
      'superadmin@platform.demo.invalid',
    ].map((e) => app.login(e, PASSWORD)),
  );
  const me = await app.get('/api/auth/me', { token: client });
  return { app, client: client!, orgAdmin: orgAdmin!, expert: expert!, expert2: expert2!, am: am!, superadmin: superadmin!, acmeId: me.body.orgMemberships[0].orgId };
}

/** A second active org (of our AM) with Omar Haddad assigned and a client, for isolation checks. */
async function otherOrg(app: TestApp, am: string, slug: string): Promise<{ orgId: string; client: string }> {
  const make = factoriesOf(app);
  const assignedAmId = (await app.get('/api/auth/me', { token: am })).body.id as string;
  const org = await make.newOrg({ legalName: `Other ${slug}`, slug, corporateDomains: [`${slug}.example.com`], timezone: 'Europe/Berlin', assignedAmId });
  const [omar] = await make.rows<{ id: string }>('specialists', { slug: 'omar-haddad' });
  await make.newSpecialistAssignment(org, { specialist: omar! });
  return { orgId: org.id, client: await app.demoLogin('client', slug) };
}

describe('conversations, replies and status (spec 2.5, 3.1, 4.4)', () => {
  let c: Ctx;
  const sockets: TestSocket[] = [];
  beforeAll(async () => {
    c = await context(await startTestApp());
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await c?.app.close();
  });

  it('answers a client message exactly once with the offline Specialist, and shows the thread', async () => {
    const created = await c.app.post('/api/conversations', { subject: 'Invoice question', message: 'Where is my invoice for March?' }, { token: c.client });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ orgId: c.acmeId, status: 'pending', channel: 'web', subject: 'Invoice question', specialist: { name: 'Émilie Laurent' } });
    const [question, reply] = created.body.messages;
    expect(question).toMatchObject({ role: 'client', content: 'Where is my invoice for March?', is_internal: false });
    expect(reply).toMatchObject({ role: 'specialist', sender_id: created.body.specialist.id, is_internal: false });
    expect(reply.content).toMatch(/offline/i);

    const thread = await c.app.get(`/api/conversations/${created.body.id}`, { token: c.client });
    expect(thread.status).toBe(200);
    expect(thread.body.conversation).toMatchObject({ id: created.body.id, status: 'pending', auto_responded: true });
    expect(thread.body.messages.map((m: { id: string }) => m.id)).toEqual([question.id, reply.id]);
    expect(thread.body.nextCursor).toBeNull();
  });

  it('shows the Specialist the thread before each client message: its earlier messages and replies, no internal note', async () => {
    const agent = c.app.running.app.get(AgentService);
    const repo = c.app.running.app.get(ConversationsRepository);
    const runTurn = vi.spyOn(agent, 'runTurn');
    const readLater = vi.spyOn(repo, 'historyBefore');
    try {
      const created = await c.app.post('/api/conversations', { message: 'First question' }, { token: c.client });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const note = await c.app.post(`/api/conversations/${id}/messages`, { content: 'Staff only', isInternal: true }, { token: c.expert });
      expect(note.status).toBe(201);
      const second = await c.app.post(`/api/conversations/${id}/messages`, { content: 'Second question' }, { token: c.client });
      expect(second.status).toBe(201);
      const shown = runTurn.mock.calls.map(([input]) => input.history.map((m) => [m.role, m.content]));
      expect(shown).toEqual([
        [['user', 'First question']],
        [
          ['user', 'First question'],
          ['assistant', created.body.messages[1].content],
          ['user', 'Second question'],
        ],
      ]);
      // The thread was pending both times: the statement that stored each message read its history.
      expect(readLater).not.toHaveBeenCalled();
    } finally {
      runTurn.mockRestore();
      readLater.mockRestore();
    }
  });

  it('returns the first result for a repeated Idempotency-Key and creates nothing', async () => {
    const conv = (await c.app.post('/api/conversations', {}, { token: c.client })).body;
    const send = () => c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'Once, please' }, { token: c.client, headers: { 'idempotency-key': 'key-1' } });
    const first = await send();
    expect(first.status).toBe(201);
    expect(first.body.reply).toMatchObject({ role: 'specialist' });
    const again = await Promise.all([send(), send()]);
    for (const r of again) {
      expect(r.body.id).toBe(first.body.id);
      expect(r.body.reply.id).toBe(first.body.reply.id);
    }
    const thread = await c.app.get(`/api/conversations/${conv.id}`, { token: c.client });
    expect(thread.body.messages).toHaveLength(2);
    expect((await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'x' }, { token: c.client, headers: { 'idempotency-key': 'bad key with spaces' } })).status).toBe(400);
  });

  it('gives each of several concurrent messages exactly one reply', async () => {
    const conv = (await c.app.post('/api/conversations', {}, { token: c.client })).body;
    const sent = await Promise.all([1, 2, 3, 4, 5].map((n) => c.app.post(`/api/conversations/${conv.id}/messages`, { content: `Question ${n}` }, { token: c.client })));
    expect(sent.every((r) => r.status === 201 && r.body.reply?.role === 'specialist')).toBe(true);
    const thread = (await c.app.get(`/api/conversations/${conv.id}?limit=50`, { token: c.client })).body.messages as Array<{ role: string }>;
    expect(thread.filter((m) => m.role === 'client')).toHaveLength(5);
    expect(thread.filter((m) => m.role === 'specialist')).toHaveLength(5);
  });

  it('never replies twice when a turn is retried or picked up after a crash', async () => {
    const db = c.app.running.app.get(DbService);
    const conv = (await c.app.post('/api/conversations', {}, { token: c.client })).body;
    // A message whose request died before its turn ran: stored with its turn, no reply.
    const [message] = await rows<{ id: string }>(
      db.root.execute(sql`
      insert into conversation_messages (conversation_id, org_id, role, sender_id, content, created_at)
      values (${conv.id}, ${c.acmeId}, 'client', ${(await c.app.get('/api/auth/me', { token: c.client })).body.id}, 'Lost request', now() - interval '5 minutes')
      returning id`),
    );
    await db.root.execute(sql`insert into conversation_turns (message_id, conversation_id, org_id, created_at) values (${message!.id}, ${conv.id}, ${c.acmeId}, now() - interval '5 minutes')`);
    const { TurnsService } = await import('../../src/modules/conversations/turns.service.js');
    const turns = c.app.running.app.get(TurnsService);
    // Two sweepers at once (two instances), then a retried one: one reply.
    await Promise.all([turns.runStranded(), turns.runStranded()]);
    await turns.runStranded();
    const repliesTo = () => rows(db.root.execute(sql`select id from conversation_messages where reply_to_message_id = ${message!.id}`));
    // The service's own periodic sweep may have claimed the turn first and still be running it.
    await expect.poll(async () => (await repliesTo()).length, { timeout: 20_000 }).toBeGreaterThan(0);
    await turns.runStranded();
    expect(await repliesTo()).toHaveLength(1);
  });

  it('shows an Expert follow-up to the client as the Specialist, keeps internal notes from clients, and moves pending -> awaiting_client', async () => {
    const conv = (await c.app.post('/api/conversations', { message: 'I need a human' }, { token: c.client })).body;
    const note = await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'Internal: check the ledger', isInternal: true }, { token: c.expert });
    expect(note.status).toBe(201);
    expect(note.body).toMatchObject({ role: 'expert', is_internal: true, reply: null });
    expect((await c.app.get(`/api/conversations/${conv.id}`, { token: c.client })).body.conversation.status).toBe('pending');

    const followUp = await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'Here is your answer.' }, { token: c.expert });
    expect(followUp.body).toMatchObject({ role: 'expert', is_internal: false, reply: null });
    const expertMe = (await c.app.get('/api/auth/me', { token: c.expert })).body;
    expect(followUp.body.sender_id).toBe(expertMe.id);

    const clientView = (await c.app.get(`/api/conversations/${conv.id}`, { token: c.client })).body;
    expect(clientView.conversation.status).toBe('awaiting_client');
    expect(clientView.messages.some((m: { content: string }) => m.content.includes('Internal'))).toBe(false);
    const shown = clientView.messages.find((m: { id: string }) => m.id === followUp.body.id);
    expect(shown).toMatchObject({ role: 'specialist', sender_id: conv.specialist.id });
    expect(JSON.stringify(clientView)).not.toContain(expertMe.id);

    const staffView = (await c.app.get(`/api/conversations/${conv.id}`, { token: c.expert })).body;
    expect(staffView.messages.find((m: { id: string }) => m.id === note.body.id)).toMatchObject({ is_internal: true });
    expect((await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'sneaky', isInternal: true }, { token: c.client })).status).toBe(403);

    // The client answers: awaiting_client -> pending.
    await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'Thanks, one more thing' }, { token: c.client });
    expect((await c.app.get(`/api/conversations/${conv.id}`, { token: c.client })).body.conversation.status).toBe('pending');
  });

  it('lets an Expert correct a delivered reply, keeping the original (audited)', async () => {
    const conv = (await c.app.post('/api/conversations', { message: 'What are your hours?' }, { token: c.client })).body;
    const reply = conv.messages[1];
    const corrected = await c.app.patch(`/api/conversations/${conv.id}/messages/${reply.id}`, { content: 'We are open 9 to 5.', reason: 'wrong hours' }, { token: c.expert });
    expect(corrected.status).toBe(200);
    expect(corrected.body).toMatchObject({ id: reply.id, content: 'We are open 9 to 5.', correctedAt: expect.any(String) });
    const revisions = await c.app.get(`/api/conversations/${conv.id}/messages/${reply.id}/revisions`, { token: c.expert });
    expect(revisions.body.items).toEqual([expect.objectContaining({ previousContent: reply.content, reason: 'wrong hours' })]);
    expect((await c.app.patch(`/api/conversations/${conv.id}/messages/${reply.id}`, { content: 'x' }, { token: c.client })).status).toBe(403);
    expect((await c.app.patch(`/api/conversations/${conv.id}/messages/${conv.messages[0].id}`, { content: 'x' }, { token: c.expert })).status).toBe(409);
    const audit = await c.app.get(`/api/ops/audit?resourceId=${reply.id}`, { token: c.superadmin });
    expect(audit.body.items.map((a: { action: string }) => a.action)).toContain('conversation.message.corrected');
  });

  it('applies the spec 3.1 table over HTTP: resolve, reopen, dismiss, set status and their refusals', async () => {
    const conv = (await c.app.post('/api/conversations', {}, { token: c.client })).body;
    const path = (action: string) => `/api/conversations/${conv.id}/${action}`;
    expect((await c.app.patch(path('reopen'), undefined, { token: c.client })).status).toBe(409);
    const resolved = await c.app.patch(path('resolve'), undefined, { token: c.client });
    expect(resolved.body).toMatchObject({ status: 'resolved', resolvedAt: expect.any(String) });
    expect((await c.app.patch(path('resolve'), undefined, { token: c.client })).status).toBe(409);
    const reopened = await c.app.patch(path('reopen'), undefined, { token: c.expert });
    expect(reopened.body).toMatchObject({ status: 'pending', resolvedAt: resolved.body.resolvedAt });
    // Resolving again keeps the first stamp.
    expect((await c.app.patch(path('resolve'), undefined, { token: c.orgAdmin })).body.resolvedAt).toBe(resolved.body.resolvedAt);
    await c.app.patch(path('reopen'), undefined, { token: c.client });

    // Dismiss: client only, from awaiting_client only.
    expect((await c.app.patch(path('dismiss'), undefined, { token: c.client })).status).toBe(409);
    await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'Answer' }, { token: c.expert });
    expect((await c.app.patch(path('dismiss'), undefined, { token: c.expert })).status).toBe(403);
    expect((await c.app.patch(path('dismiss'), undefined, { token: c.client })).body.status).toBe('resolved');

    // Set status: expert, account_manager, superadmin only; `open` reads as pending and is never stored.
    expect((await c.app.patch(path('status'), { status: 'pending' }, { token: c.client })).status).toBe(403);
    for (const [token, status] of [
      [c.expert, 'awaiting_client'],
      [c.am, 'open'],
      [c.superadmin, 'resolved'],
    ] as const) {
      const r = await c.app.patch(path('status'), { status }, { token });
      expect(r.status).toBe(200);
      expect(r.body.status).toBe(status === 'open' ? 'pending' : status);
    }
    expect((await c.app.patch(path('status'), { status: 'archived' }, { token: c.expert })).status).toBe(400);
    expect((await c.app.patch(path('status'), { status: 'snoozed' }, { token: c.expert })).body.details).toEqual([expect.objectContaining({ field: 'snoozeUntil' })]);
    expect((await c.app.patch(path('status'), { status: 'snoozed', snoozeUntil: new Date(Date.now() - 1000).toISOString() }, { token: c.expert })).status).toBe(400);
    expect((await c.app.get(`/api/conversations?status=open`, { token: c.client })).status).toBe(200);
  });

  it('still answers the deprecated /archive and /unarchive aliases (spec 9.3)', async () => {
    const conv = (await c.app.post('/api/conversations', {}, { token: c.client })).body;
    const archived = await c.app.patch(`/api/conversations/${conv.id}/archive`, undefined, { token: c.client });
    expect(archived.status).toBe(200);
    expect(archived.body.status).toBe('resolved');
    expect(archived.headers.get('deprecation')).toBe('true');
    expect(archived.headers.get('link')).toContain(`/api/conversations/${conv.id}/resolve`);
    const unarchived = await c.app.patch(`/api/conversations/${conv.id}/unarchive`, undefined, { token: c.client });
    expect(unarchived.body.status).toBe('pending');
  });

  it('resurfaces an expired snooze to pending with a synthetic activity entry', async () => {
    const conv = (await c.app.post('/api/conversations', {}, { token: c.client })).body;
    const until = new Date(Date.now() + 3600_000).toISOString();
    const snoozed = await c.app.patch(`/api/conversations/${conv.id}/status`, { status: 'snoozed', snoozeUntil: until }, { token: c.expert });
    expect(snoozed.body).toMatchObject({ status: 'snoozed', snoozeUntil: until });
    const service = c.app.running.app.get(ConversationsService);
    await service.resurfaceSnoozed();
    expect((await c.app.get(`/api/conversations/${conv.id}`, { token: c.expert })).body.conversation.status).toBe('snoozed');
    c.app.running.app.get(Clock).advance(3600_000 + 1000);
    expect(await service.resurfaceSnoozed()).toBeGreaterThanOrEqual(1);
    const staff = (await c.app.get(`/api/conversations/${conv.id}`, { token: c.expert })).body;
    expect(staff.conversation).toMatchObject({ status: 'pending', snoozeUntil: null });
    expect(staff.messages.at(-1)).toMatchObject({ role: 'system', is_internal: true, content: expect.stringContaining('Snooze ended') });
    // The activity entry is staff-only.
    expect((await c.app.get(`/api/conversations/${conv.id}`, { token: c.client })).body.messages.some((m: { role: string }) => m.role === 'system')).toBe(false);
  });

  it('tells the readers of a thread that a human was asked, until the request is resolved', async () => {
    const conv = (await c.app.post('/api/conversations', { message: 'A question for a person' }, { token: c.client })).body;
    const asked = async (token: string) => {
      const thread = await c.app.get(`/api/conversations/${conv.id}`, { token });
      expect(thread.status).toBe(200);
      return thread.body.humanRequestedAt as string | null;
    };
    expect(await asked(c.client)).toBeNull();

    const before = Date.now();
    expect((await c.app.post(`/api/conversations/${conv.id}/escalate`, {}, { token: c.client })).status).toBe(201);
    // After a reload too: the request is read from the attention list, for the client and for staff.
    const at = await asked(c.client);
    expect(at).not.toBeNull();
    expect(Date.parse(at!)).toBeGreaterThanOrEqual(before - 1000);
    expect(await asked(c.orgAdmin)).toBe(at);
    expect(await asked(c.expert)).toBe(at);

    // Resolved: the request is answered, and the client may ask again later.
    await c.app.patch(`/api/conversations/${conv.id}/resolve`, undefined, { token: c.expert });
    expect(await asked(c.client)).toBeNull();
  });

  it('keeps the attention list to escalations and failures, scoped by grants', async () => {
    const expertQueue = async (token: string, status = 'all') =>
      (await c.app.get(`/api/expert-queue?status=${status}`, { token })).body.items as Array<{ conversationId: string; reason: string; status: string; sla_deadline: string }>;
    const before = (await expertQueue(c.expert)).length;
    const conv = (await c.app.post('/api/conversations', { message: 'Ordinary question' }, { token: c.client })).body;
    expect((await expertQueue(c.expert)).length).toBe(before);

    const escalated = await c.app.post(`/api/conversations/${conv.id}/escalate`, { reason: 'Please call me' }, { token: c.client });
    expect(escalated.status).toBe(201);
    const item = (await expertQueue(c.expert)).find((i) => i.conversationId === conv.id);
    expect(item).toMatchObject({ reason: 'escalation', status: 'pending', note: 'Please call me', sla_deadline: expect.any(String) });
    expect((await expertQueue(c.expert, 'pending')).some((i) => i.conversationId === conv.id)).toBe(true);
    expect((await expertQueue(c.expert, 'resolved')).some((i) => i.conversationId === conv.id)).toBe(false);
    // expert2 has no grant on acme: not on their list, and the thread reads as 404.
    expect((await expertQueue(c.expert2)).some((i) => i.conversationId === conv.id)).toBe(false);
    expect((await c.app.get(`/api/conversations/${conv.id}`, { token: c.expert2 })).status).toBe(404);
    // The covering Expert was told: at once after the commit, or soon when a queue worker took the outbox job first.
    const told = async () =>
      ((await c.app.get('/api/notifications', { token: c.expert })).body as Array<{ type: string; meta: { conversationId?: string } }>).some(
        (n) => n.type === 'expert_queue.escalation' && n.meta.conversationId === conv.id,
      );
    await expect.poll(told, { timeout: 30_000 }).toBe(true);

    // The item follows the conversation's status.
    await c.app.patch(`/api/conversations/${conv.id}/resolve`, undefined, { token: c.expert });
    expect((await expertQueue(c.expert, 'resolved')).find((i) => i.conversationId === conv.id)?.status).toBe('resolved');
    expect((await c.app.get('/api/expert-queue', { token: c.client })).status).toBe(403);

    // Assignment to a covering Expert only.
    const expertId = (await c.app.get('/api/auth/me', { token: c.expert })).body.id;
    const expert2Id = (await c.app.get('/api/auth/me', { token: c.expert2 })).body.id;
    expect((await c.app.patch(`/api/conversations/${conv.id}/assign`, { expertId }, { token: c.am })).body.assigned_expert_id).toBe(expertId);
    expect((await c.app.patch(`/api/conversations/${conv.id}/assign`, { expertId: expert2Id }, { token: c.am })).status).toBe(409);
    expect((await c.app.patch(`/api/conversations/${conv.id}/assign`, { expertId }, { token: c.client })).status).toBe(403);
    expect((await c.app.get(`/api/conversations/${conv.id}`, { token: c.client })).body.conversation.assigned_expert_id).toBeNull();
  });

  it('isolates orgs: another org reads 404, lists nothing of ours, finds nothing of ours', async () => {
    const other = await otherOrg(c.app, c.am, 'globex');
    const ours = (await c.app.post('/api/conversations', { message: 'The zebra password is secret' }, { token: c.client })).body;
    expect((await c.app.get(`/api/conversations/${ours.id}`, { token: other.client })).status).toBe(404);
    expect((await c.app.post(`/api/conversations/${ours.id}/messages`, { content: 'hi' }, { token: other.client })).status).toBe(404);
    expect((await c.app.patch(`/api/conversations/${ours.id}/resolve`, undefined, { token: other.client })).status).toBe(404);
    expect((await c.app.post('/api/conversations', { orgId: c.acmeId }, { token: other.client })).status).toBe(404);
    const theirs = (await c.app.post('/api/conversations', { message: 'Our zebra budget' }, { token: other.client })).body;
    expect(theirs.specialist.name).toBe('Omar Haddad');
    const listed = (await c.app.get('/api/conversations?limit=200', { token: other.client })).body.items as Array<{ id: string }>;
    expect(listed.map((x) => x.id)).toEqual([theirs.id]);

    const found = (await c.app.get('/api/conversations/search?q=zebra', { token: c.client })).body.items as Array<{ conversation: { id: string }; matches: Array<{ content: string }> }>;
    expect(found.map((h) => h.conversation.id)).toEqual([ours.id]);
    expect(found[0]!.matches[0]!.content).toContain('zebra');
    expect(((await c.app.get('/api/conversations/search?q=zebra', { token: other.client })).body.items as Array<{ conversation: { id: string } }>).map((h) => h.conversation.id)).toEqual([theirs.id]);
    const all = (await c.app.get('/api/conversations/search?q=zebra', { token: c.superadmin })).body.items as unknown[];
    expect(all).toHaveLength(2);
    expect((await c.app.get(`/api/conversations/search?q=zebra&orgId=${other.orgId}`, { token: c.client })).status).toBe(404);
    // Internal notes are never found by clients.
    await c.app.post(`/api/conversations/${ours.id}/messages`, { content: 'Internal walrus remark', isInternal: true }, { token: c.expert });
    expect((await c.app.get('/api/conversations/search?q=walrus', { token: c.client })).body.items).toEqual([]);
    expect((await c.app.get('/api/conversations/search?q=walrus', { token: c.expert })).body.items).toHaveLength(1);
  });

  it("decides a message's thread from its remembered org and Specialist: no read of the thread, the same 404s", async () => {
    const repo = c.app.running.app.get(ConversationsRepository);
    const db = c.app.running.app.get(DbService);
    const other = await otherOrg(c.app, c.am, 'initech');
    const ours = (await c.app.post('/api/conversations', { message: 'First' }, { token: c.client })).body;
    const read = vi.spyOn(repo, 'findVisible');
    try {
      // The thread is known (its creation read it): the message is stored by one statement, no read before it.
      const sent = await c.app.post(`/api/conversations/${ours.id}/messages`, { content: 'Second' }, { token: c.client });
      expect(sent.status).toBe(201);
      expect(sent.body.reply).toMatchObject({ role: 'specialist' });
      expect(read).not.toHaveBeenCalled();
      // Who does not reach it still reads 404, and nothing is stored: another org's client, an Expert with no grant on the org.
      expect((await c.app.post(`/api/conversations/${ours.id}/messages`, { content: 'Not yours' }, { token: other.client })).status).toBe(404);
      expect((await c.app.post(`/api/conversations/${ours.id}/messages`, { content: 'Not covered' }, { token: c.expert2 })).status).toBe(404);
      expect(read).not.toHaveBeenCalled();
      // A thread in another status: the message goes through the status rule (awaiting_client -> pending), answered once.
      expect((await c.app.post(`/api/conversations/${ours.id}/messages`, { content: 'An Expert follow-up' }, { token: c.expert })).status).toBe(201);
      expect((await c.app.get(`/api/conversations/${ours.id}`, { token: c.client })).body.conversation.status).toBe('awaiting_client');
      const back = await c.app.post(`/api/conversations/${ours.id}/messages`, { content: 'Third' }, { token: c.client });
      expect(back.status).toBe(201);
      expect(back.body.reply).toMatchObject({ role: 'specialist' });
      const thread = (await c.app.get(`/api/conversations/${ours.id}?limit=50`, { token: c.client })).body;
      expect(thread.conversation.status).toBe('pending');
      expect((thread.messages as Array<{ content: string }>).map((m) => m.content).filter((x) => ['First', 'Second', 'Third', 'Not yours', 'Not covered'].includes(x))).toEqual([
        'First',
        'Second',
        'Third',
      ]);
      // A thread deleted with its org after it was read: 404, not an error.
      const theirs = (await c.app.post('/api/conversations', { message: 'Soon gone' }, { token: other.client })).body;
      await db.root.execute(sql`delete from orgs where id = ${other.orgId}`);
      const gone = await c.app.post(`/api/conversations/${theirs.id}/messages`, { content: 'Anyone there?' }, { token: c.superadmin });
      expect(gone.status).toBe(404);
      expect(gone.body.code).toBe('not_found');
    } finally {
      read.mockRestore();
    }
  });

  it('streams the reply as server-sent events; the streamed reply is the stored one', async () => {
    const conv = (await c.app.post('/api/conversations', {}, { token: c.client })).body;
    const res = await fetch(`${c.app.url}/api/conversations/${conv.id}/messages/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.client}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Stream me an answer' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((block) => ({ event: /^event: (.*)$/m.exec(block)![1], data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) }));
    expect(events[0]).toMatchObject({ event: 'message', data: { role: 'client', content: 'Stream me an answer' } });
    const deltas = events.filter((e) => e.event === 'delta');
    expect(deltas.length).toBeGreaterThan(1);
    const reply = events.find((e) => e.event === 'reply')!.data;
    expect(deltas.map((d) => d.data.text).join('')).toBe(reply.content);
    expect(events.at(-1)!.event).toBe('done');
    const thread = (await c.app.get(`/api/conversations/${conv.id}`, { token: c.client })).body.messages as Array<{ id: string; role: string }>;
    expect(thread.filter((m) => m.role === 'specialist').map((m) => m.id)).toEqual([reply.id]);
    // Errors before the stream opens are ordinary JSON errors.
    const missing = await fetch(`${c.app.url}/api/conversations/00000000-0000-4000-8000-000000000000/messages/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.client}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'x' }),
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ statusCode: 404, code: 'not_found' });
  });

  it('lets sockets follow threads they reach: events in the client view, internal notes to staff only', async () => {
    const other = await otherOrg(c.app, c.am, 'initech');
    const conv = (await c.app.post('/api/conversations', {}, { token: c.client })).body;
    const clientSocket = await connectSocket(c.app.url, c.client);
    const expertSocket = await connectSocket(c.app.url, c.expert);
    const strangerSocket = await connectSocket(c.app.url, other.client);
    const expert2Socket = await connectSocket(c.app.url, c.expert2);
    sockets.push(clientSocket, expertSocket, strangerSocket, expert2Socket);
    expect(await clientSocket.emitWithAck('join_conversation', conv.id)).toEqual({ ok: true });
    expect(await expertSocket.emitWithAck('join_conversation', conv.id)).toEqual({ ok: true });
    expect(await strangerSocket.emitWithAck('join_conversation', conv.id)).toEqual({ ok: false, error: 'forbidden' });
    expect(await expert2Socket.emitWithAck('join_conversation', conv.id)).toEqual({ ok: false, error: 'forbidden' });

    const clientMessages = collect(clientSocket, 'workspace_message_added');
    const expertMessages = collect(expertSocket, 'workspace_message_added');
    const clientReplies = collect(clientSocket, 'agent_message_sent');
    const clientStatus = collect(clientSocket, 'conversation_status_changed');
    const strangerReplies = collect(strangerSocket, 'agent_message_sent');

    await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'hello' }, { token: c.client });
    await waitFor(() => clientReplies.length === 1);
    expect(clientReplies[0]!.message).toMatchObject({ role: 'specialist', conversationId: conv.id });

    await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'Staff only', isInternal: true }, { token: c.expert });
    await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'For the client' }, { token: c.expert });
    await waitFor(() => expertMessages.length === 2 && clientMessages.length === 1 && clientStatus.length === 1);
    expect(clientMessages[0]!.message).toMatchObject({ role: 'specialist', sender_id: conv.specialist.id, content: 'For the client' });
    expect(expertMessages.map((e) => e.message.role)).toEqual(['expert', 'expert']);
    expect(clientStatus[0]).toMatchObject({ from: 'pending', to: 'awaiting_client', changedBy: null });
    await new Promise((r) => setTimeout(r, 200));
    expect(clientMessages).toHaveLength(1);
    expect(strangerReplies).toHaveLength(0);
  });

  it("pushes each view to the sockets in the event's rooms, once each, without ever listing an audience's sockets", async () => {
    const conv = (await c.app.post('/api/conversations', {}, { token: c.client })).body;
    const clientSocket = await connectSocket(c.app.url, c.client);
    const expertSocket = await connectSocket(c.app.url, c.expert);
    sockets.push(clientSocket, expertSocket);
    // The Expert is in the thread's room and in its Specialist's Experts room: one copy all the same.
    expect(await clientSocket.emitWithAck('join_conversation', conv.id)).toEqual({ ok: true });
    expect(await expertSocket.emitWithAck('join_conversation', conv.id)).toEqual({ ok: true });

    // An audience's room may be asked whether it holds a socket, never listed: a push must cost its
    // recipients, not every client (or staff) socket of the instance.
    const realtime = c.app.running.app.get(RealtimeService) as unknown as { ns: { adapter: { rooms: Map<string, Set<string>> } } };
    const members = realtime.ns.adapter.rooms;
    const listed: string[] = [];
    for (const room of [AUDIENCE_CLIENT_ROOM, AUDIENCE_STAFF_ROOM]) {
      const set = members.get(room)!;
      const refuse = () => {
        listed.push(room);
        throw new Error(`${room} was listed`);
      };
      Object.assign(set, { forEach: refuse, values: refuse, keys: refuse, entries: refuse, [Symbol.iterator]: refuse });
    }

    const clientSeen = { received: collect(clientSocket, 'user_message_received'), replies: collect(clientSocket, 'agent_message_sent'), added: collect(clientSocket, 'workspace_message_added') };
    const expertSeen = { received: collect(expertSocket, 'user_message_received'), replies: collect(expertSocket, 'agent_message_sent'), added: collect(expertSocket, 'workspace_message_added') };
    const clientQueue = collect(clientSocket, 'expert_queue_item_added');
    const expertQueue = collect(expertSocket, 'expert_queue_item_added');

    await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'Hello there' }, { token: c.client });
    await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'Staff only', isInternal: true }, { token: c.expert });
    await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'For the client' }, { token: c.expert });
    expect((await c.app.post(`/api/conversations/${conv.id}/escalate`, { reason: 'A person, please' }, { token: c.client })).status).toBe(201);
    await waitFor(() => expertSeen.added.length === 2 && clientSeen.added.length === 1 && expertQueue.length === 1 && clientSeen.replies.length === 1 && expertSeen.replies.length === 1);
    await new Promise((r) => setTimeout(r, 200));

    expect(listed).toEqual([]);
    for (const seen of [clientSeen, expertSeen]) {
      expect(seen.received.map((e) => e.message.content)).toEqual(['Hello there']);
      expect(seen.replies).toHaveLength(1);
    }
    // The staff view names the Expert; the client's shows the Specialist, and no internal note.
    expect(expertSeen.added.map((e) => [e.message.role, e.message.content])).toEqual([
      ['expert', 'Staff only'],
      ['expert', 'For the client'],
    ]);
    expect(clientSeen.added.map((e) => [e.message.role, e.message.content])).toEqual([['specialist', 'For the client']]);
    // The attention list's events are for staff only.
    expect(expertQueue.map((e) => e.conversationId)).toEqual([conv.id]);
    expect(clientQueue).toEqual([]);
  });
});

describe('the org message quota (spec 7.1, 8)', () => {
  let c: Ctx;
  beforeAll(async () => {
    c = await context(await startTestApp({ env: { ORG_MESSAGE_QUOTA_PER_HOUR: '3' } }));
  });
  afterAll(async () => c?.app.close());

  it('answers 429 with the spec 7.1 headers and body past the quota; another org is unaffected', async () => {
    const other = await otherOrg(c.app, c.am, 'umbrella');
    const conv = (await c.app.post('/api/conversations', { message: 'one' }, { token: c.client })).body;
    await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'two' }, { token: c.orgAdmin });
    await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'three' }, { token: c.client });
    const over = await c.app.post(`/api/conversations/${conv.id}/messages`, { content: 'four' }, { token: c.client });
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ statusCode: 429, code: 'rate_limit', error: 'ThrottlerException', message: expect.any(String) });
    expect(over.headers.get('x-ratelimit-limit')).toBe('3');
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(over.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const quota = await c.app.get(`/api/orgs/${c.acmeId}/quota`, { token: c.client });
    expect(quota.body).toMatchObject({ orgId: c.acmeId, limit: 3, used: 3, remaining: 0, windowSeconds: 3600 });
    expect((await c.app.get(`/api/orgs/${c.acmeId}/quota`, { token: other.client })).status).toBe(404);

    const theirs = await c.app.post('/api/conversations', { message: 'fine' }, { token: other.client });
    expect(theirs.status).toBe(201);
    expect((await c.app.get(`/api/orgs/${other.orgId}/quota`, { token: other.client })).body).toMatchObject({ used: 1, remaining: 2 });
  });
});

describe('a turn that fails after its retries (spec 4.4)', () => {
  let c: Ctx;
  let provider: Server;
  let calls = 0;
  beforeAll(async () => {
    provider = createServer((req, res) => {
      calls++;
      req.resume();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'model overloaded' } }));
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const port = (provider.address() as { port: number }).port;
    c = await context(await startTestApp({ env: { LLM_PROVIDER: 'openai-compatible', LLM_BASE_URL: `http://127.0.0.1:${port}/v1`, LLM_MODEL: 'test-model', LLM_API_KEY: 'k' } }));
  });
  afterAll(async () => {
    await c?.app.close();
    await new Promise((resolve) => provider?.close(resolve));
  });

  it('stores no reply, puts the thread on the attention list and tells the covering Experts', async () => {
    const conv = await c.app.post('/api/conversations', { message: 'Will this work?' }, { token: c.client });
    expect(conv.status).toBe(201);
    expect(conv.body.messages).toHaveLength(1);
    expect(calls).toBeGreaterThanOrEqual(3);
    const thread = (await c.app.get(`/api/conversations/${conv.body.id}`, { token: c.client })).body;
    expect(thread.messages.filter((m: { role: string }) => m.role === 'specialist')).toHaveLength(0);
    expect(thread.conversation.auto_responded).toBe(false);
    const items = (await c.app.get('/api/expert-queue', { token: c.expert })).body.items as Array<{ conversationId: string; reason: string }>;
    expect(items.find((i) => i.conversationId === conv.body.id)).toMatchObject({ reason: 'agent_failure' });
    const notes = (await c.app.get('/api/notifications', { token: c.expert })).body as Array<{ type: string; meta: { conversationId?: string } }>;
    expect(notes.filter((n) => n.type === 'expert_queue.agent_failure' && n.meta.conversationId === conv.body.id)).toHaveLength(1);
    // The ledger recorded every failed call.
    const db = c.app.running.app.get(DbService);
    const runs = await rows<{ outcome: string }>(db.root.execute(sql`select outcome from llm_runs where conversation_id = ${conv.body.id}`));
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(runs.every((r) => r.outcome === 'error')).toBe(true);
  });
});
