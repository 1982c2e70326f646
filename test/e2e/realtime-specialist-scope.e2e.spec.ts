import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgsService } from '../../src/modules/orgs/index.js';
import { UsersService } from '../../src/modules/users/index.js';
import { connectSocket, waitFor, type TestSocket } from '../support/sockets.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
const FRESH_PASSWORD = 'a-fresh-password';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const clustered = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

/** Every event that names a conversation: the four queue events and the org-room conversation events. */
const THREAD_EVENTS = [
  'expert_queue_item_added',
  'queue_item_status_updated',
  'queue_item_resolved',
  'queue_item_updated',
  'conversation_status_changed',
  'user_message_received',
  'agent_message_sent',
  'workspace_message_added',
] as const;

interface Seen {
  event: string;
  conversationId: string;
}

/** Every thread event a socket receives, by name and conversation. */
function record(socket: TestSocket): Seen[] {
  const seen: Seen[] = [];
  socket.onAny((event: string, payload: { conversationId?: string } | undefined) => {
    if ((THREAD_EVENTS as readonly string[]).includes(event) && payload?.conversationId) seen.push({ event, conversationId: payload.conversationId });
  });
  return seen;
}

const eventsOf = (seen: Seen[], conversationId: string) => [...new Set(seen.filter((s) => s.conversationId === conversationId).map((s) => s.event))].sort();

/**
 * Spec 2.4 (a grant is org-wide or scoped to Specialists) and API-MAP "Sessions, sockets and
 * hardening" (the experts room carries an org's queue events only to the Experts who cover them):
 * an Expert scoped to one Specialist of an org is streamed that Specialist's threads only.
 * `writes` is the instance the requests go to; `sockets` the one the sockets connect to (the same
 * one, or a second instance of the deployment sharing PostgreSQL and Redis).
 */
function scopeSuite(title: string, instances: () => Promise<{ writes: TestApp; sockets: TestApp; close: () => Promise<void> }>) {
  describe(title, () => {
    let writes: TestApp;
    let on: TestApp;
    let close: () => Promise<void>;
    let am: string;
    let staff: string;
    let client: string;
    let acmeId: string;
    /** Specialist A (acme's primary) and B (assigned here), with their assignments. */
    const A = { specialistId: '', assignmentId: '' };
    const B = { specialistId: '', assignmentId: '' };
    let n = 0;
    const sockets: TestSocket[] = [];

    /** A new Expert with the given grant on acme (none when `scope` is null), and its socket's events. */
    const expert = async (scope: 'org' | string[] | null) => {
      const email = `scope-${++n}-${Math.random().toString(36).slice(2, 8)}@example.com`;
      const user = await writes.running.app.get(UsersService).create({ email, platformRole: 'expert', password: FRESH_PASSWORD });
      let grantId: string | undefined;
      if (scope !== null) {
        const body = scope === 'org' ? { expertId: user.id, scope: 'org' } : { expertId: user.id, scope: 'specialist', specialistIds: scope };
        const grant = await writes.post(`/api/am/orgs/${acmeId}/expert-grants`, body, { token: am });
        expect(grant.status).toBe(201);
        grantId = grant.body.id as string;
      }
      const socket = await connectSocket(on.url, await on.login(email, FRESH_PASSWORD));
      sockets.push(socket);
      return { id: user.id, socket, seen: record(socket), grantId };
    };

    /** A socket of an existing account, on the sockets' instance. */
    const existing = async (email: string) => {
      const socket = await connectSocket(on.url, await on.login(email, PASSWORD));
      sockets.push(socket);
      return { socket, seen: record(socket) };
    };

    /**
     * A thread of the client with one Specialist, taken through every event an org room or the
     * queue carries: an escalation (queue item added), a snooze (status and item updates), a
     * client message (back to pending), a resolve (resolved). Returns its id once `witness` has seen all of that.
     */
    const activity = async (specialist: typeof A, witness: Seen[]): Promise<string> => {
      const created = await writes.post('/api/conversations', { assignmentId: specialist.assignmentId, message: 'Opening' }, { token: client });
      expect(created.status).toBe(201);
      expect(created.body.specialist.id).toBe(specialist.specialistId);
      const id = created.body.id as string;
      expect((await writes.post(`/api/conversations/${id}/escalate`, { reason: 'A person, please' }, { token: client })).status).toBe(201);
      const snoozeUntil = new Date(Date.now() + 3600_000).toISOString();
      expect((await writes.patch(`/api/conversations/${id}/status`, { status: 'snoozed', snoozeUntil }, { token: staff })).status).toBe(200);
      expect((await writes.post(`/api/conversations/${id}/messages`, { content: 'A question' }, { token: client })).status).toBe(201);
      expect((await writes.patch(`/api/conversations/${id}/resolve`, undefined, { token: staff })).status).toBe(200);
      const expected = ['conversation_status_changed', 'expert_queue_item_added', 'queue_item_resolved', 'queue_item_status_updated', 'queue_item_updated', 'user_message_received'];
      await waitFor(() => expected.every((e) => eventsOf(witness, id).includes(e)));
      return id;
    };

    beforeAll(async () => {
      ({ writes, sockets: on, close } = await instances());
      am = await writes.login('account_manager@platform.demo.invalid', PASSWORD);
      client = await writes.login('client@acme.demo.invalid', PASSWORD);
      // expert@ holds an org-wide grant on acme: it snoozes the threads.
      staff = await writes.login('expert@platform.demo.invalid', PASSWORD);
      acmeId = (await writes.running.app.get(OrgsService).findBySlug('acme'))!.id;
      const pool = (await writes.get('/api/am/specialists?limit=200', { token: am })).body.items as Array<{ id: string; slug: string }>;
      const second = pool.find((s) => s.slug === 'jean-luc-moreau')!.id;
      expect((await writes.post(`/api/am/orgs/${acmeId}/specialist`, { specialistId: second }, { token: am })).status).toBe(201);
      const assignments = (await writes.get(`/api/am/orgs/${acmeId}/specialist-assignments`, { token: am })).body.items as Array<{ id: string; specialistId: string; isPrimary: boolean }>;
      const primary = assignments.find((a) => a.isPrimary)!;
      const other = assignments.find((a) => a.specialistId === second)!;
      Object.assign(A, { specialistId: primary.specialistId, assignmentId: primary.id });
      Object.assign(B, { specialistId: other.specialistId, assignmentId: other.id });
    });
    afterAll(async () => {
      for (const s of sockets) s.close();
      await close?.();
    });

    it("streams a Specialist's threads and queue items to the Experts covering it (org-wide or scoped to it) and the AM, never to an Expert scoped to another Specialist", async () => {
      const wide = await expert('org');
      const onlyA = await expert([A.specialistId]);
      const onlyB = await expert([B.specialistId]);
      const both = await expert([A.specialistId, B.specialistId]);
      const none = await expert(null);
      const assignedAm = await existing('account_manager@platform.demo.invalid');
      const clientSide = await existing('client@acme.demo.invalid');

      const threadB = await activity(B, wide.seen);
      const threadA = await activity(A, wide.seen);
      await waitFor(() => eventsOf(onlyB.seen, threadB).length >= 6 && eventsOf(onlyA.seen, threadA).length >= 6).catch(() => undefined);
      await sleep(500);

      const full = eventsOf(wide.seen, threadB);
      expect(full).toEqual(
        expect.arrayContaining(['conversation_status_changed', 'expert_queue_item_added', 'queue_item_resolved', 'queue_item_status_updated', 'queue_item_updated', 'user_message_received']),
      );
      // The Experts covering B get everything an org-wide Expert gets of B's thread; the one scoped to A, nothing.
      expect(eventsOf(onlyB.seen, threadB)).toEqual(full);
      expect(eventsOf(both.seen, threadB)).toEqual(full);
      expect(eventsOf(onlyA.seen, threadB)).toEqual([]);
      expect(eventsOf(none.seen, threadB)).toEqual([]);
      // And the other way round for A's thread.
      expect(eventsOf(onlyA.seen, threadA)).toEqual(eventsOf(wide.seen, threadA));
      expect(eventsOf(both.seen, threadA)).toEqual(eventsOf(wide.seen, threadA));
      expect(eventsOf(onlyB.seen, threadA)).toEqual([]);
      // Each event reaches a scoped Expert once, as it reaches an org-wide one.
      expect(onlyB.seen.filter((s) => s.conversationId === threadB)).toHaveLength(wide.seen.filter((s) => s.conversationId === threadB).length);
      expect(both.seen.filter((s) => s.conversationId === threadB)).toHaveLength(wide.seen.filter((s) => s.conversationId === threadB).length);
      // The assigned AM is in the org room as before; the client gets no queue event.
      expect(eventsOf(assignedAm.seen, threadB)).toEqual(full);
      expect(eventsOf(clientSide.seen, threadB).filter((e) => e.includes('queue'))).toEqual([]);
    });

    it("refuses join_conversation on a thread of a Specialist the Expert's grant does not cover", async () => {
      const onlyA = await expert([A.specialistId]);
      const wide = await expert('org');
      const threadB = await activity(B, wide.seen);
      const threadA = await activity(A, wide.seen);
      expect(await onlyA.socket.emitWithAck('join_conversation', threadB)).toEqual({ ok: false, error: 'forbidden' });
      expect(await onlyA.socket.emitWithAck('join_conversation', threadA)).toEqual({ ok: true });
      expect(await wide.socket.emitWithAck('join_conversation', threadB)).toEqual({ ok: true });
      // Nothing of B's thread reaches the refused socket afterwards either.
      expect((await writes.post(`/api/conversations/${threadB}/messages`, { content: 'After the refusal' }, { token: client })).status).toBe(201);
      await waitFor(() => wide.seen.filter((s) => s.conversationId === threadB && s.event === 'user_message_received').length >= 2);
      await sleep(300);
      expect(eventsOf(onlyA.seen, threadB)).toEqual([]);
    });

    it('narrowing a grant from org-wide to one Specialist takes the open socket off the other Specialists within 5 s', async () => {
      const narrowed = await expert('org');
      const witness = await expert('org');
      const before = await activity(B, witness.seen);
      await waitFor(() => eventsOf(narrowed.seen, before).includes('expert_queue_item_added'));
      // The org-wide thread the socket follows is one of B's as well.
      expect(await narrowed.socket.emitWithAck('join_conversation', before)).toEqual({ ok: true });

      const since = Date.now();
      expect((await writes.post(`/api/am/orgs/${acmeId}/expert-grants`, { expertId: narrowed.id, scope: 'specialist', specialistIds: [A.specialistId] }, { token: am })).status).toBe(201);
      expect((await writes.request('DELETE', `/api/am/orgs/${acmeId}/expert-grants/${narrowed.grantId}`, { token: am })).status).toBe(204);
      // Within 5 s, a new thread of B no longer reaches the socket.
      for (;;) {
        const probe = await activity(B, witness.seen);
        await sleep(250);
        if (eventsOf(narrowed.seen, probe).length === 0) break;
        expect(Date.now() - since).toBeLessThan(5000);
      }
      expect(Date.now() - since).toBeLessThan(5000);
      const afterB = await activity(B, witness.seen);
      const afterA = await activity(A, witness.seen);
      await waitFor(() => eventsOf(narrowed.seen, afterA).includes('queue_item_resolved'));
      await sleep(300);
      expect(eventsOf(narrowed.seen, afterB)).toEqual([]);
      expect(eventsOf(narrowed.seen, afterA)).toEqual(eventsOf(witness.seen, afterA));
      // The followed thread of B is left too, and cannot be joined again.
      const streamed = narrowed.seen.filter((s) => s.conversationId === before).length;
      expect((await writes.post(`/api/conversations/${before}/messages`, { content: 'After the narrowing' }, { token: client })).status).toBe(201);
      await waitFor(() => witness.seen.filter((s) => s.conversationId === before && s.event === 'user_message_received').length >= 3);
      await sleep(300);
      expect(narrowed.seen.filter((s) => s.conversationId === before)).toHaveLength(streamed);
      expect(await narrowed.socket.emitWithAck('join_conversation', before)).toEqual({ ok: false, error: 'forbidden' });
      expect(narrowed.socket.connected).toBe(true);
    });
  });
}

scopeSuite('Specialist-scoped Expert grants on sockets (spec 2.4, 6.1)', async () => {
  const app = await startTestApp();
  return { writes: app, sockets: app, close: () => app.close() };
});

describe.runIf(clustered)('across two instances (PostgreSQL and Redis)', () => {
  scopeSuite('Specialist-scoped Expert grants, sockets on instance 2, writes on instance 1', async () => {
    const one = await startTestApp();
    const two = await startTestApp({ shareWith: one });
    return {
      writes: one,
      sockets: two,
      close: async () => {
        await two.running.close();
        await one.close();
      },
    };
  });
});
