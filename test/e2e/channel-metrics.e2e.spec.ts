import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InboundProcessor } from '../../src/modules/channels/inbound.processor.js';
import { OutboundService } from '../../src/modules/channels/outbound.service.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { jobScope } from '../../src/platform/tenancy/org-scope.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startFakeVendor, type FakeVendor } from '../support/vendor.js';
import { connectVerified, messagingACall } from '../support/webhooks.js';

const PASSWORD = 'demo1234';
const PUBLIC_URL = 'https://service.example.com';
const AUTH_TOKEN = 'messaging-a-auth-token';
const POOL_NUMBER = '+15550000001';
const CLIENT_NUMBER = '+15557654321';
const BREAKER_RESET_MS = 3000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function rows<T>(query: Promise<unknown>): Promise<T[]> {
  const result = await query;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** The samples of a Prometheus text exposition: name, labels, value. */
function samples(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

describe('channel metrics on /metrics (docs/channels.md "Metrics")', () => {
  let acmeId: string;
  let app: TestApp;
  let vendor: FakeVendor;
  let db: DbService;

  /** The value of one series now (0 when absent), read from the scrape as Prometheus would. */
  async function metric(name: string, labels: Record<string, string>): Promise<number> {
    const res = await app.get('/metrics');
    expect(res.status).toBe(200);
    const found = samples(res.body as string).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => (s.labels[k] ?? '') === v));
    return found.reduce((sum, s) => sum + s.value, 0);
  }

  async function post(params: Record<string, string>): Promise<number> {
    const call = messagingACall(PUBLIC_URL, AUTH_TOKEN, params);
    return (await app.request('POST', call.path, { body: call.body, headers: call.headers })).status;
  }

  /** The event once the worker has finished with it. */
  const finished = (eventKey: string) =>
    vi.waitFor(
      async () => {
        const [row] = await rows<{ status: string; reason: string | null }>(db.root.execute(sql`select status, reason from inbound_events where channel = 'messaging-a' and event_key = ${eventKey}`));
        if (!row || row.status === 'queued' || row.status === 'processing') throw new Error(`event ${eventKey} not processed: ${JSON.stringify(row)}`);
        return row;
      },
      { timeout: 15_000, interval: 100 },
    );

  /** The outbox row of the reply to an event, once tried `attempts` times and no longer being sent. */
  const tried = (eventKey: string, attempts: number) =>
    vi.waitFor(
      async () => {
        const [row] = await rows<{ id: string; status: string; attempts: number }>(
          db.root.execute(
            sql`select o.id, o.status, o.attempts from outbound_messages o join inbound_events e on e.conversation_id = o.conversation_id and o.created_at >= e.received_at where e.event_key = ${eventKey} order by o.created_at limit 1`,
          ),
        );
        if (!row || row.attempts < attempts || row.status === 'sending') throw new Error(`the reply to ${eventKey} was not tried ${attempts} times: ${JSON.stringify(row)}`);
        return row;
      },
      { timeout: 15_000, interval: 100 },
    );

  beforeAll(async () => {
    vendor = await startFakeVendor();
    app = await startTestApp({
      env: {
        PUBLIC_URL,
        MESSAGING_A_AUTH_TOKEN: AUTH_TOKEN,
        MESSAGING_A_NUMBER_POOL: POOL_NUMBER,
        MESSAGING_A_API_BASE_URL: `${vendor.url}/messaging-a`,
        CHANNEL_BREAKER_RESET_MS: String(BREAKER_RESET_MS),
      },
    });
    db = app.running.app.get(DbService);
    const am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    acmeId = (await app.get('/api/auth/me', { token: await app.login('client@acme.demo.invalid', PASSWORD) })).body.orgMemberships[0].orgId;
    await connectVerified(app, acmeId, { channel: 'messaging-a', config: { whitelist: [CLIENT_NUMBER] }, secrets: { accountSid: 'AC123', authToken: 'sender-token' } }, am);
  });
  afterAll(async () => {
    await app?.close();
    await vendor?.close();
  });

  it('has every channel series from the start, breakers closed', async () => {
    const text = (await app.get('/metrics')).body as string;
    for (const channel of ['chat-a', 'messaging-a', 'messaging-b', 'email', 'enterprise-chat']) {
      expect(text).toContain(`channel_inbound_accepted_total{channel="${channel}"} 0`);
      expect(text).toContain(`channel_outbound_sends_total{channel="${channel}",outcome="sent"} 0`);
      expect(text).toContain(`channel_outbound_sends_total{channel="${channel}",outcome="deferred"} 0`);
      expect(text).toContain(`channel_outbound_breaker_state{channel="${channel}"} 0`);
      expect(text).toContain(`channel_inbound_queue_depth{channel="${channel}",status="queued"} 0`);
    }
    expect(text).toMatch(/# TYPE channel_inbound_events_total counter/);
  });

  it('counts a message accepted at the door once, processed by the worker, and its reply sent', async () => {
    const params = { MessageSid: 'SM-m1', From: CLIENT_NUMBER, To: POOL_NUMBER, Body: 'Please call me back' };
    expect(await post(params)).toBe(200);
    // A redelivery is acknowledged, not accepted again.
    expect(await post(params)).toBe(200);
    expect(await finished('SM-m1')).toMatchObject({ status: 'done' });
    expect(await tried('SM-m1', 1)).toMatchObject({ status: 'sent' });
    expect(vendor.sends('/Messages.json')).toHaveLength(1);
    expect(await metric('channel_inbound_accepted_total', { channel: 'messaging-a' })).toBe(1);
    expect(await metric('channel_inbound_events_total', { channel: 'messaging-a', outcome: 'processed', reason: '' })).toBe(1);
    expect(await metric('channel_outbound_sends_total', { channel: 'messaging-a', outcome: 'sent' })).toBe(1);
    // A call refused at the door (bad signature) is not accepted.
    const forged = messagingACall(PUBLIC_URL, 'not-the-token', { ...params, MessageSid: 'SM-forged' });
    expect((await app.request('POST', forged.path, { body: forged.body, headers: forged.headers })).status).toBe(401);
    expect(await metric('channel_inbound_accepted_total', { channel: 'messaging-a' })).toBe(1);
  });

  it('counts a quarantine with its reason', async () => {
    expect(await post({ MessageSid: 'SM-m2', From: '+15551112222', To: POOL_NUMBER, Body: 'who am I' })).toBe(200);
    expect(await finished('SM-m2')).toEqual({ status: 'quarantined', reason: 'unresolved_org' });
    expect(await metric('channel_inbound_accepted_total', { channel: 'messaging-a' })).toBe(2);
    expect(await metric('channel_inbound_events_total', { channel: 'messaging-a', outcome: 'quarantined', reason: 'unresolved_org' })).toBe(1);
    expect(await metric('channel_inbound_events_total', { channel: 'messaging-a', outcome: 'processed' })).toBe(1);
  });

  it('counts failed sends as retried, a call the open breaker refuses as deferred (no attempt), the breaker half-open and closing; the last attempt as failed', { timeout: 60_000 }, async () => {
    // The vendor is down: the failed calls (over 50% of at least 3 in the breaker's window) open the breaker.
    vendor.failNext = 100;
    const replies: Array<{ id: string; status: string }> = [];
    for (const n of [3, 4, 5]) {
      expect(await post({ MessageSid: `SM-m${n}`, From: CLIENT_NUMBER, To: POOL_NUMBER, Body: `message ${n}` })).toBe(200);
      expect(await finished(`SM-m${n}`)).toMatchObject({ status: 'done' });
      replies.push(await tried(`SM-m${n}`, 1));
    }
    expect(replies.map((r) => r.status)).toEqual(['pending', 'pending', 'pending']);
    expect(await metric('channel_outbound_sends_total', { channel: 'messaging-a', outcome: 'retried' })).toBe(3);
    expect(await metric('channel_outbound_breaker_state', { channel: 'messaging-a' })).toBe(2);
    expect(await metric('channel_outbound_breaker_state', { channel: 'chat-a' })).toBe(0);
    const vendorCalls = vendor.sends('/Messages.json').length;

    // The last of its attempts comes while the breaker is open: the breaker refuses the call, nothing
    // reaches the vendor, so it is no attempt: deferred, the row still has its last attempt.
    const outbound = app.running.app.get(OutboundService);
    const row0 = async () => (await rows<{ status: string; attempts: number }>(db.root.execute(sql`select status, attempts from outbound_messages where id = ${replies[0]!.id}`)))[0]!;
    // (a send of m5 may have been deferred already, when m1's success still counted in the breaker's window)
    const deferredBefore = await metric('channel_outbound_sends_total', { channel: 'messaging-a', outcome: 'deferred' });
    await db.root.execute(sql`update outbound_messages set attempts = 3, next_attempt_at = now() where id = ${replies[0]!.id}`);
    await outbound.dispatch(jobScope({ orgId: acmeId }), replies[0]!.id);
    expect(await row0()).toEqual({ status: 'pending', attempts: 3 });
    expect(await metric('channel_outbound_sends_total', { channel: 'messaging-a', outcome: 'deferred' })).toBe(deferredBefore + 1);
    expect(await metric('channel_outbound_sends_total', { channel: 'messaging-a', outcome: 'failed' })).toBe(0);
    expect(vendor.sends('/Messages.json')).toHaveLength(vendorCalls);

    // After the reset timeout the breaker lets a trial through (half-open); that last attempt fails at
    // the vendor: failed, not retried, and the breaker opens again.
    await sleep(BREAKER_RESET_MS + 200);
    await db.root.execute(sql`update outbound_messages set next_attempt_at = now() where id = ${replies[0]!.id}`);
    await outbound.dispatch(jobScope({ orgId: acmeId }), replies[0]!.id);
    // (the periodic sweep may have taken the row first: wait for its send)
    await expect.poll(() => row0(), { timeout: 15_000 }).toEqual({ status: 'failed', attempts: 4 });
    expect(await metric('channel_outbound_sends_total', { channel: 'messaging-a', outcome: 'failed' })).toBe(1);
    expect(await metric('channel_outbound_sends_total', { channel: 'messaging-a', outcome: 'retried' })).toBe(3);
    expect(await metric('channel_outbound_breaker_state', { channel: 'messaging-a' })).toBe(2);

    // The vendor is back. After the reset timeout the breaker lets a trial through (half-open); its success closes it.
    vendor.failNext = 0;
    // (0 if the periodic sweep already made that trial with a due row)
    await sleep(BREAKER_RESET_MS + 200);
    expect([0, 1]).toContain(await metric('channel_outbound_breaker_state', { channel: 'messaging-a' }));
    await db.root.execute(sql`update outbound_messages set next_attempt_at = now() where id = ${replies[1]!.id}`);
    await outbound.dispatch(jobScope({ orgId: acmeId }), replies[1]!.id);
    // (the periodic sweep may have taken the row first: wait for its send)
    await expect.poll(() => metric('channel_outbound_sends_total', { channel: 'messaging-a', outcome: 'sent' }), { timeout: 15_000 }).toBe(2);
    expect(await metric('channel_outbound_breaker_state', { channel: 'messaging-a' })).toBe(0);
  });

  it('reads the inbound queue depth per channel and status at each scrape', async () => {
    // Two accepted events no worker has taken yet.
    const held = await rows<{ id: string }>(db.root.execute(sql`insert into inbound_events (channel, event_key, body) values ('email', 'depth-1', '{}'), ('email', 'depth-2', '{}') returning id`));
    expect(await metric('channel_inbound_queue_depth', { channel: 'email', status: 'queued' })).toBe(2);
    expect(await metric('channel_inbound_queue_depth', { channel: 'messaging-a', status: 'queued' })).toBe(0);
    // Processed (they carry no mail: malformed), the queue is empty again and the reason counted.
    const processor = app.running.app.get(InboundProcessor);
    for (const h of held) await processor.process(h.id);
    expect(await metric('channel_inbound_queue_depth', { channel: 'email', status: 'queued' })).toBe(0);
    expect(await metric('channel_inbound_events_total', { channel: 'email', outcome: 'quarantined', reason: 'malformed_body' })).toBe(2);
  });
});
