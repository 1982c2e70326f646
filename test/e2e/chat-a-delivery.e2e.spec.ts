import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundService } from '../../src/modules/channels/outbound.service.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { jobScope } from '../../src/platform/tenancy/org-scope.js';
import { eventually, processedEvent, rows, sleep } from '../support/inbound.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startFakeVendor, type FakeVendor } from '../support/vendor.js';
import { chatACall, connectVerified } from '../support/webhooks.js';

const PASSWORD = 'demo1234';
const SIGNING_SECRET = 'chat-a-signing-secret';
const WORKSPACE = 'T-DELIVERY';
// Long enough for the checks made while the breaker is open on a loaded machine.
const BREAKER_RESET_MS = 4000;
const MINUTE = 60_000;

interface OutboxRow {
  id: string;
  status: string;
  attempts: number;
  last_error: string | null;
  /** Milliseconds from now until the next attempt. */
  wait_ms: number;
}

/**
 * chat-a replies (spec 8: "chat-a retry policy: 4 attempts, stepped backoff of 1, 5, 10 minutes"):
 * a call the open circuit breaker refuses never reached the vendor and is no attempt; a reply that
 * fails all four is a genuine failure, seen in the thread, on the Expert attention list (spec 4.4)
 * and in the org's channel status.
 */
describe('chat-a reply delivery: retries, the circuit breaker, genuine failures', () => {
  let app: TestApp;
  let vendor: FakeVendor;
  let db: DbService;
  let acmeId: string;
  let staff: string;
  let expert: string;
  let client: string;
  let owner: string;

  const postEvent = (eventId: string, text: string) => {
    const call = chatACall(SIGNING_SECRET, {
      type: 'event_callback',
      team_id: WORKSPACE,
      event_id: eventId,
      event: { type: 'message', channel: 'D-DELIVERY', channel_type: 'im', user: 'U-CLIENT', text, ts: `${1_700_000_000 + Number(eventId.replace(/\D/g, ''))}.000100` },
    });
    return app.request('POST', call.path, { body: call.body, headers: call.headers });
  };
  const postMessages = () => vendor.sends('/chat-a/chat.postMessage');

  async function outbox(conversationId: string): Promise<OutboxRow | undefined> {
    const [row] = await rows<OutboxRow>(
      db,
      sql`select id, status, attempts, last_error, (extract(epoch from (next_attempt_at - now())) * 1000)::int as wait_ms from outbound_messages where conversation_id = ${conversationId} order by created_at desc limit 1`,
    );
    return row;
  }
  /** The row once it satisfies `ready` (the worker, the periodic sweep or this test may have sent it). */
  const outboxWhen = (conversationId: string, what: string, ready: (row: OutboxRow) => boolean) =>
    eventually(what, async () => {
      const row = await outbox(conversationId);
      return row && row.status !== 'sending' && ready(row) ? row : undefined;
    });
  /** Makes the row due and sends it now (as the periodic sweep would, a little later). */
  async function sendNow(id: string): Promise<void> {
    await db.root.execute(sql`update outbound_messages set next_attempt_at = now() where id = ${id}`);
    await app.running.app.get(OutboundService).dispatch(jobScope({ orgId: acmeId }), id);
  }
  const chatAStatus = async (token: string) => (await app.get(`/api/orgs/${acmeId}/channels/status`, { token })).body.items.find((c: { channel: string }) => c.channel === 'chat-a');

  beforeAll(async () => {
    vendor = await startFakeVendor();
    app = await startTestApp({ env: { CHAT_A_SIGNING_SECRET: SIGNING_SECRET, CHAT_A_API_BASE_URL: `${vendor.url}/chat-a`, CHANNEL_BREAKER_RESET_MS: String(BREAKER_RESET_MS) } });
    db = app.running.app.get(DbService);
    staff = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    expert = await app.login('expert@platform.demo.invalid', PASSWORD);
    client = await app.login('client@acme.demo.invalid', PASSWORD);
    owner = await app.login('org_admin@acme.demo.invalid', PASSWORD);
    acmeId = (await app.get('/api/auth/me', { token: client })).body.orgMemberships[0].orgId;
    await connectVerified(app, acmeId, { channel: 'chat-a', externalId: WORKSPACE, config: { botUserId: 'U-BOT' }, secrets: { botToken: 'xoxb-delivery' } }, staff);
  });
  afterAll(async () => {
    await app?.close();
    await vendor?.close();
  });

  it(
    'retries after 1, 5 and 10 minutes; a call refused by the open breaker is rescheduled, not counted; the fourth failure is a genuine failure in the thread, the attention list and the channel status',
    { timeout: 90_000 },
    async () => {
      vendor.failNext = 1000;
      expect((await postEvent('Ev-1', 'Where is my order?')).status).toBe(200);
      const { conversation_id: conversationId } = await processedEvent(db, 'chat-a', `${WORKSPACE}:Ev-1`);
      expect(conversationId).toBeTruthy();

      // Attempt 1 (the job) fails: the next in 1 minute. The org sees its replies being retried.
      const first = await outboxWhen(conversationId!, 'attempt 1', (r) => r.attempts === 1);
      expect(first).toMatchObject({ status: 'pending', last_error: expect.stringContaining('answered 500') });
      expect(first.wait_ms).toBeGreaterThan(MINUTE - 10_000);
      expect(first.wait_ms).toBeLessThanOrEqual(MINUTE);
      expect(await chatAStatus(owner)).toMatchObject({ delivery: 'retrying', breaker: 'closed' });

      // Attempts 2 and 3 fail: 5, then 10 minutes. Three failures in a row open the breaker.
      await sendNow(first.id);
      const second = await outboxWhen(conversationId!, 'attempt 2', (r) => r.attempts === 2);
      expect(second.status).toBe('pending');
      expect(second.wait_ms).toBeGreaterThan(5 * MINUTE - 10_000);
      expect(second.wait_ms).toBeLessThanOrEqual(5 * MINUTE);
      await sendNow(first.id);
      const third = await outboxWhen(conversationId!, 'attempt 3', (r) => r.attempts === 3);
      expect(third.status).toBe('pending');
      expect(third.wait_ms).toBeGreaterThan(10 * MINUTE - 10_000);
      expect(third.wait_ms).toBeLessThanOrEqual(10 * MINUTE);
      expect(postMessages()).toHaveLength(3);
      expect(await chatAStatus(owner)).toMatchObject({ breaker: 'open', delivery: 'retrying' });

      // Due again while the breaker is open: refused without a call to the vendor, so no attempt is
      // spent; the row waits until the breaker lets a trial through (CHANNEL_BREAKER_RESET_MS).
      for (let i = 0; i < 2; i++) {
        await sendNow(first.id);
        const deferred = await outboxWhen(conversationId!, 'the deferral', (r) => r.wait_ms > 0);
        expect(deferred).toMatchObject({ status: 'pending', attempts: 3 });
        expect(deferred.wait_ms).toBeLessThanOrEqual(BREAKER_RESET_MS);
      }
      expect(postMessages()).toHaveLength(3);
      const midway = await app.get(`/api/conversations/${conversationId}`, { token: staff });
      expect(midway.body.messages.filter((m: { role: string }) => m.role === 'system')).toEqual([]);

      // The breaker half-opens; the trial is the fourth attempt, and it fails: failed for good.
      await sleep(BREAKER_RESET_MS + 200);
      await sendNow(first.id);
      const failed = await outboxWhen(conversationId!, 'the fourth attempt', (r) => r.attempts === 4);
      expect(failed.status).toBe('failed');
      expect(postMessages()).toHaveLength(4);

      // The thread (staff view) says the reply was not delivered; the client view has no such entry.
      const thread = await app.get(`/api/conversations/${conversationId}`, { token: staff });
      const entries = thread.body.messages.filter((m: { role: string }) => m.role === 'system');
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ is_internal: true, content: expect.stringContaining('could not be delivered through chat-a after 4 attempts') });
      expect(entries[0].content).toContain('answered 500');
      const clientThread = await app.get(`/api/conversations/${conversationId}`, { token: client });
      expect(clientThread.status).toBe(200);
      expect(clientThread.body.messages.some((m: { role: string }) => m.role === 'system')).toBe(false);

      // The Expert attention list holds the conversation as a genuine failure.
      const queue = await app.get('/api/expert-queue?status=all', { token: expert });
      expect(queue.status).toBe(200);
      const item = queue.body.items.find((i: { conversationId: string }) => i.conversationId === conversationId);
      expect(item).toMatchObject({ reason: 'agent_failure', note: expect.stringContaining('could not be delivered through chat-a after 4 attempts') });

      // The org's channel status: delivery is failing, with the vendor's error.
      expect(await chatAStatus(owner)).toMatchObject({ delivery: 'failing', recentFailures: 1, lastError: expect.stringContaining('answered 500') });

      // The vendor is back: once the breaker lets a call through, a new reply is delivered and the
      // channel is no longer failing.
      vendor.failNext = 0;
      await sleep(BREAKER_RESET_MS + 200);
      expect((await postEvent('Ev-2', 'Any news?')).status).toBe(200);
      await eventually('the second reply delivered', async () => ((await chatAStatus(owner)).delivery === 'ok' ? true : undefined), 30_000);
      expect(postMessages()).toHaveLength(5);
      // The failure is recorded once.
      const after = await app.get(`/api/conversations/${conversationId}`, { token: staff });
      expect(after.body.messages.filter((m: { role: string }) => m.role === 'system')).toHaveLength(1);
    },
  );
});
