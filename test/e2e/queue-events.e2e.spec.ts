import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueItemPayload, QueueStatusPayload } from '../../src/contracts/realtime.js';
import { ConversationsService } from '../../src/modules/conversations/index.js';
import { Clock } from '../../src/platform/clock/clock.js';
import { connectSocket, waitFor, type TestSocket } from '../support/sockets.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
const HOUR = 3600_000;
/** The four Expert-queue events of spec 6.1, spelled as the spec spells them. */
const QUEUE_EVENTS = ['expert_queue_item_added', 'queue_item_resolved', 'queue_item_status_updated', 'queue_item_updated'] as const;
type QueueEvent = (typeof QUEUE_EVENTS)[number];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Seen {
  event: string;
  payload: { conversationId?: string } & Record<string, unknown>;
}

/** Every event a socket receives, in order, by name. */
function record(socket: TestSocket): Seen[] {
  const seen: Seen[] = [];
  socket.onAny((event: string, payload: Seen['payload']) => seen.push({ event, payload }));
  return seen;
}

const ofThread = (seen: Seen[], conversationId: string, event?: QueueEvent) =>
  seen.filter((s) => s.payload?.conversationId === conversationId && (event === undefined || s.event === event) && (QUEUE_EVENTS as readonly string[]).includes(s.event));

describe('Expert-queue socket events and deferred_until (spec 2.5, 4.4, 6.1)', () => {
  let app: TestApp;
  let client: string;
  let expert: string;
  let expertId: string;
  let acmeId: string;
  let covering: Seen[];
  let uncovering: Seen[];
  let clientSide: Seen[];
  const sockets: TestSocket[] = [];

  const open = async (token: string) => {
    const socket = await connectSocket(app.url, token);
    sockets.push(socket);
    return record(socket);
  };

  /** A new acme thread on the attention list (the client asked for a human). */
  const escalated = async (reason = 'A person, please'): Promise<string> => {
    const conversationId = (await app.post('/api/conversations', { message: 'I have a question' }, { token: client })).body.id as string;
    expect((await app.post(`/api/conversations/${conversationId}/escalate`, { reason }, { token: client })).status).toBe(201);
    await waitFor(() => ofThread(covering, conversationId, 'expert_queue_item_added').length === 1);
    return conversationId;
  };

  /** The thread's item as the queue list API shows it to the covering Expert. */
  const listed = async (conversationId: string, tab = 'all') => {
    const answer = await app.get(`/api/expert-queue?status=${tab}`, { token: expert });
    expect(answer.status).toBe(200);
    return (answer.body.items as Array<Record<string, unknown>>).find((i) => i.conversationId === conversationId);
  };

  const setStatus = async (conversationId: string, body: Record<string, unknown>) => {
    const answer = await app.patch(`/api/conversations/${conversationId}/status`, body, { token: expert });
    expect(answer.status).toBe(200);
    return answer.body;
  };

  /** Waits until the covering Expert has `count` events of that name for the thread, then a little more (nothing else may come). */
  const settle = async (conversationId: string, expected: Partial<Record<QueueEvent, number>>) => {
    // A timeout falls through to the counts below, which say what is missing.
    await waitFor(() => Object.entries(expected).every(([event, count]) => ofThread(covering, conversationId, event as QueueEvent).length >= count!)).catch(() => undefined);
    await sleep(300);
    for (const event of QUEUE_EVENTS) expect(ofThread(covering, conversationId, event), event).toHaveLength(expected[event] ?? 0);
  };

  const last = <T>(conversationId: string, event: QueueEvent) => ofThread(covering, conversationId, event).at(-1)!.payload as unknown as T;

  beforeAll(async () => {
    app = await startTestApp();
    [client, expert] = await Promise.all([app.login('client@acme.demo.invalid', PASSWORD), app.login('expert@platform.demo.invalid', PASSWORD)]);
    expertId = (await app.get('/api/auth/me', { token: expert })).body.id;
    acmeId = (await app.get('/api/auth/me', { token: client })).body.orgMemberships[0].orgId;
    // expert@ holds an org-wide grant on acme; expert2@ holds none; the client is a member of acme.
    covering = await open(expert);
    uncovering = await open(await app.login('expert2@platform.demo.invalid', PASSWORD));
    clientSide = await open(client);
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await app?.close();
  });

  it('pushes expert_queue_item_added with its sla_deadline when a client asks for a human, as the list shows it; nothing to an Expert without a grant', async () => {
    const before = Date.now();
    const conversationId = await escalated('Please call me');
    await settle(conversationId, { expert_queue_item_added: 1 });
    const added = last<QueueItemPayload>(conversationId, 'expert_queue_item_added');
    expect(added).toEqual({
      id: expect.any(String),
      conversationId,
      orgId: acmeId,
      status: 'pending',
      reason: 'escalation',
      sla_deadline: expect.any(String),
      deferred_until: null,
      assigned_expert_id: null,
      updatedAt: expect.any(String),
    });
    // An escalation is due within 4 hours.
    const due = Date.parse(added.sla_deadline!);
    expect(due).toBeGreaterThanOrEqual(before + 4 * HOUR - 1000);
    expect(due).toBeLessThanOrEqual(Date.now() + 4 * HOUR + 1000);
    expect(await listed(conversationId, 'pending')).toMatchObject({ id: added.id, status: 'pending', sla_deadline: added.sla_deadline, deferred_until: null });
    expect(ofThread(uncovering, conversationId)).toEqual([]);
    expect(ofThread(clientSide, conversationId)).toEqual([]);
    // Every queue event the covering Expert got is named as the spec names it.
    expect(covering.filter((s) => /queue/.test(s.event)).every((s) => (QUEUE_EVENTS as readonly string[]).includes(s.event))).toBe(true);
  });

  it('a snooze defers the item: queue_item_status_updated and queue_item_updated carrying deferred_until, shown on the Snoozed tab', async () => {
    const conversationId = await escalated();
    const until = new Date(Date.now() + 2 * HOUR).toISOString();
    await setStatus(conversationId, { status: 'snoozed', snoozeUntil: until });
    await settle(conversationId, { expert_queue_item_added: 1, queue_item_status_updated: 1, queue_item_updated: 1 });
    const added = last<QueueItemPayload>(conversationId, 'expert_queue_item_added');
    expect(last<QueueStatusPayload>(conversationId, 'queue_item_status_updated')).toEqual({
      id: added.id,
      conversationId,
      orgId: acmeId,
      from: 'pending',
      to: 'snoozed',
      updatedAt: expect.any(String),
    });
    expect(last<QueueItemPayload>(conversationId, 'queue_item_updated')).toMatchObject({ id: added.id, status: 'snoozed', deferred_until: until, sla_deadline: added.sla_deadline });
    expect(await listed(conversationId, 'snoozed')).toMatchObject({ status: 'snoozed', deferred_until: until, sla_deadline: added.sla_deadline });
    expect(await listed(conversationId, 'pending')).toBeUndefined();

    // Snoozing again for longer moves the deferral: an update, no status change.
    const later = new Date(Date.now() + 3 * HOUR).toISOString();
    await setStatus(conversationId, { status: 'snoozed', snoozeUntil: later });
    await settle(conversationId, { expert_queue_item_added: 1, queue_item_status_updated: 1, queue_item_updated: 2 });
    expect(last<QueueItemPayload>(conversationId, 'queue_item_updated')).toMatchObject({ status: 'snoozed', deferred_until: later });
    expect((await listed(conversationId, 'snoozed'))?.deferred_until).toBe(later);
    expect(ofThread(uncovering, conversationId)).toEqual([]);
  });

  it('clears deferred_until when the snooze expires and the item resurfaces as pending', async () => {
    const conversationId = await escalated();
    const snoozeUntil = new Date(Date.now() + HOUR).toISOString();
    expect(await setStatus(conversationId, { status: 'snoozed', snoozeUntil })).toMatchObject({ status: 'snoozed', snoozeUntil });
    await settle(conversationId, { expert_queue_item_added: 1, queue_item_status_updated: 1, queue_item_updated: 1 });
    expect((await listed(conversationId))?.deferred_until).toBe(snoozeUntil);

    app.running.app.get(Clock).advance(HOUR + 1000);
    expect(await app.running.app.get(ConversationsService).resurfaceSnoozed()).toBeGreaterThanOrEqual(1);
    await settle(conversationId, { expert_queue_item_added: 1, queue_item_status_updated: 2, queue_item_updated: 2 });
    expect(last<QueueStatusPayload>(conversationId, 'queue_item_status_updated')).toMatchObject({ from: 'snoozed', to: 'pending' });
    expect(last<QueueItemPayload>(conversationId, 'queue_item_updated')).toMatchObject({ status: 'pending', deferred_until: null });
    expect(await listed(conversationId, 'pending')).toMatchObject({ status: 'pending', deferred_until: null });
    expect(await listed(conversationId, 'snoozed')).toBeUndefined();
  });

  it('clears deferred_until when the client writes in a snoozed thread', async () => {
    const conversationId = await escalated();
    const snoozeUntil = new Date(Date.now() + 5 * HOUR).toISOString();
    await setStatus(conversationId, { status: 'snoozed', snoozeUntil });
    await settle(conversationId, { expert_queue_item_added: 1, queue_item_status_updated: 1, queue_item_updated: 1 });

    expect((await app.post(`/api/conversations/${conversationId}/messages`, { content: 'Any news?' }, { token: client })).status).toBe(201);
    await settle(conversationId, { expert_queue_item_added: 1, queue_item_status_updated: 2, queue_item_updated: 2 });
    expect(last<QueueStatusPayload>(conversationId, 'queue_item_status_updated')).toMatchObject({ from: 'snoozed', to: 'pending' });
    expect(last<QueueItemPayload>(conversationId, 'queue_item_updated')).toMatchObject({ status: 'pending', deferred_until: null });
    expect(await listed(conversationId, 'pending')).toMatchObject({ deferred_until: null });
  });

  it('pushes queue_item_updated for an assignment and queue_item_status_updated (with queue_item_updated) when an Expert replies', async () => {
    const conversationId = await escalated();
    expect((await app.patch(`/api/conversations/${conversationId}/assign`, { expertId }, { token: expert })).status).toBe(200);
    await settle(conversationId, { expert_queue_item_added: 1, queue_item_updated: 1 });
    expect(last<QueueItemPayload>(conversationId, 'queue_item_updated')).toMatchObject({ status: 'pending', assigned_expert_id: expertId, deferred_until: null, sla_deadline: expect.any(String) });

    expect((await app.post(`/api/conversations/${conversationId}/messages`, { content: 'Looking into it' }, { token: expert })).status).toBe(201);
    await settle(conversationId, { expert_queue_item_added: 1, queue_item_updated: 2, queue_item_status_updated: 1 });
    expect(last<QueueStatusPayload>(conversationId, 'queue_item_status_updated')).toMatchObject({ from: 'pending', to: 'awaiting_client' });
    expect(last<QueueItemPayload>(conversationId, 'queue_item_updated')).toMatchObject({ status: 'awaiting_client', assigned_expert_id: expertId });
    expect(await listed(conversationId, 'awaiting_client')).toMatchObject({ status: 'awaiting_client', assigned_expert_id: expertId });
  });

  it('pushes queue_item_status_updated and queue_item_resolved once each when the item is resolved (no queue_item_updated for the terminal step)', async () => {
    const conversationId = await escalated();
    const id = last<QueueItemPayload>(conversationId, 'expert_queue_item_added').id;
    expect((await app.patch(`/api/conversations/${conversationId}/resolve`, undefined, { token: expert })).status).toBe(200);
    await settle(conversationId, { expert_queue_item_added: 1, queue_item_status_updated: 1, queue_item_resolved: 1 });
    const resolved = { id, conversationId, orgId: acmeId, from: 'pending', to: 'resolved', updatedAt: expect.any(String) };
    expect(last<QueueStatusPayload>(conversationId, 'queue_item_resolved')).toEqual(resolved);
    expect(last<QueueStatusPayload>(conversationId, 'queue_item_status_updated')).toEqual(resolved);
    expect(await listed(conversationId, 'resolved')).toMatchObject({ id, status: 'resolved', deferred_until: null });
  });

  it('a second request for a human on an item already listed updates it (a new sla_deadline) rather than adding it again', async () => {
    const conversationId = await escalated('First request');
    const first = last<QueueItemPayload>(conversationId, 'expert_queue_item_added');
    expect((await app.patch(`/api/conversations/${conversationId}/resolve`, undefined, { token: client })).status).toBe(200);
    await settle(conversationId, { expert_queue_item_added: 1, queue_item_status_updated: 1, queue_item_resolved: 1 });

    await sleep(20);
    expect((await app.post(`/api/conversations/${conversationId}/escalate`, { reason: 'Again, please' }, { token: client })).status).toBe(201);
    await settle(conversationId, { expert_queue_item_added: 1, queue_item_status_updated: 2, queue_item_resolved: 1, queue_item_updated: 1 });
    expect(last<QueueStatusPayload>(conversationId, 'queue_item_status_updated')).toMatchObject({ id: first.id, from: 'resolved', to: 'pending' });
    const updated = last<QueueItemPayload>(conversationId, 'queue_item_updated');
    expect(updated).toMatchObject({ id: first.id, status: 'pending', reason: 'escalation', deferred_until: null });
    expect(Date.parse(updated.sla_deadline!)).toBeGreaterThan(Date.parse(first.sla_deadline!));
    const items = ((await app.get('/api/expert-queue?status=all', { token: expert })).body.items as Array<{ conversationId: string }>).filter((i) => i.conversationId === conversationId);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ id: first.id, status: 'pending', note: 'Again, please', sla_deadline: updated.sla_deadline });
  });

  it('the Expert without a grant on acme and the client got no queue event of all of the above, under any name', async () => {
    expect(covering.filter((s) => /queue/.test(s.event)).length).toBeGreaterThan(20);
    expect(uncovering.filter((s) => /queue/.test(s.event))).toEqual([]);
    expect(clientSide.filter((s) => /queue/.test(s.event))).toEqual([]);
  });
});
