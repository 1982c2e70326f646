import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  demoClientWithMessagingA,
  eventually,
  faultsUnsupported,
  messagingAEnv,
  messagingAText,
  modelEnv,
  openWork,
  repliesPerMessage,
  sendMessage,
  startDeployment,
  type Deployment,
} from '../support/deployment.js';
import { FakeProvider } from '../support/llm-provider.js';
import { sleep } from '../support/processes.js';
import { startFakeVendor, type FakeVendor } from '../support/vendor.js';
import { postMessagingA } from '../support/webhooks.js';

const CLIENT_NUMBERS = ['+15557650201', '+15557650202', '+15557650203'];
const LOAD_MS = 7000;

describe.skipIf(faultsUnsupported)('an instance killed (SIGKILL) in the middle of a load of client messages and inbound webhooks', () => {
  const provider = new FakeProvider();
  let vendor: FakeVendor;
  let d: Deployment;
  let client: string;
  let clientId: string;
  let conversations: string[];

  beforeAll(async () => {
    // A model that takes a while: turns are running when the instance dies.
    provider.delayMs = 700;
    const baseUrl = await provider.start();
    vendor = await startFakeVendor();
    d = await startDeployment({ ...modelEnv(baseUrl), ...messagingAEnv(vendor.url), LLM_TIMEOUT_MS: '20000', TURN_LEASE_MS: '5000', INBOUND_LEASE_MS: '6000', STRANDED_AFTER_MS: '3000' });
    // a starts first, so it leads: the kill takes the leader down too.
    const a = await d.start('a');
    await d.start('b');
    ({ client, clientId } = await demoClientWithMessagingA(a.http, CLIENT_NUMBERS));
    conversations = await Promise.all([1, 2, 3, 4].map(async () => (await a.http.post('/api/conversations', {}, { token: client })).body.id as string));
  }, 180_000);

  afterAll(async () => {
    await d?.close();
    await vendor?.close();
    await provider.stop();
  });

  it('answers every accepted message exactly once after the restart, and sends every channel reply once', async () => {
    const urls = () => [d.instance('a').url, d.instance('b').url];
    /** Like a client or a vendor: on no answer or a 5xx, the same request again (same key) to the next instance. */
    const deliver = async (first: number, send: (url: string) => Promise<number>): Promise<number> => {
      for (let attempt = 0; attempt < 200; attempt++) {
        const status = await send(urls()[(first + attempt) % 2]!);
        if (status >= 200 && status < 300) return status;
        await sleep(150);
      }
      return 0;
    };
    const webKeys: string[] = [];
    const sids: string[] = [];
    const started = Date.now();
    const web = [0, 1, 2, 3].map(async (worker) => {
      for (let i = 0; Date.now() - started < LOAD_MS; i++) {
        const key = randomUUID();
        webKeys.push(key);
        const conversation = conversations[worker]!;
        expect(await deliver(worker + i, (url) => sendMessage(url, client, conversation, `question ${worker}.${i}`, key).then((r) => r.status))).toBe(201);
      }
    });
    const hooks = [0, 1].map(async (worker) => {
      for (let i = 0; Date.now() - started < LOAD_MS; i++) {
        const sid = `SM-KILL-${worker}-${i}`;
        sids.push(sid);
        const call = messagingAText(sid, CLIENT_NUMBERS[i % CLIENT_NUMBERS.length]!, `text ${sid}`);
        expect(await deliver(worker + i, (url) => postMessagingA(url, call))).toBe(200);
        await sleep(250);
      }
    });
    const chaos = (async () => {
      await sleep(2500);
      d.instance('a').child.kill('SIGKILL');
      expect((await d.instance('a').exit).signal).toBe('SIGKILL');
      await sleep(1500);
      await d.start('a');
    })();
    await Promise.all([...web, ...hooks, chaos]);

    // The leader died with the instance: its lease runs out (30 s), a new leader's sweepers finish the rest.
    await eventually(
      'every turn, inbound event and outbound reply to finish',
      async () => {
        const open = await openWork(d.db);
        return open.turns === 0 && open.events === 0 && open.outbound === 0;
      },
      100_000,
      500,
    );

    // Web: every message the clients sent is stored once and answered once.
    const webMessages = await repliesPerMessage(d.db, conversations);
    expect(webMessages.map((m) => m.key).sort()).toEqual(webKeys.map((k) => `${clientId}:${k}`).sort());
    expect(webMessages.filter((m) => m.replies !== 1)).toEqual([]);

    // Channels: one event, one message and one reply per vendor message id.
    const events = await d.db.query<{ event_key: string; status: string; message_id: string }>(`select event_key, status, message_id from inbound_events where channel = 'messaging-a'`);
    expect(events.rows.map((e) => e.event_key).sort()).toEqual([...sids].sort());
    expect(events.rows.filter((e) => e.status !== 'done')).toEqual([]);
    const channelConversations = await d.db.query<{ id: string }>(`select id from conversations where channel = 'messaging-a'`);
    const channel = await repliesPerMessage(
      d.db,
      channelConversations.rows.map((c) => c.id),
    );
    expect(channel.map((m) => m.key).sort()).toEqual(sids.map((s) => `messaging-a:${s}`).sort());
    expect(channel.filter((m) => m.replies !== 1)).toEqual([]);

    // Every turn succeeded; the kill interrupted some work that was then taken over.
    const turns = await d.db.query<{ status: string; attempts: number }>(`select status, attempts from conversation_turns`);
    expect(turns.rows.filter((t) => t.status !== 'done')).toEqual([]);
    const retaken = await d.db.query<{ turns: number; events: number }>(
      `select (select count(*)::int from conversation_turns where attempts > 1) as turns, (select count(*)::int from inbound_events where attempts > 1) as events`,
    );
    expect(retaken.rows[0]!.turns + retaken.rows[0]!.events).toBeGreaterThan(0);
    console.info(
      `kill: ${webKeys.length} web messages, ${sids.length} webhooks; taken over after the kill: ${retaken.rows[0]!.turns} turns, ${retaken.rows[0]!.events} events; ${vendor.sends('/Messages.json').length} vendor sends`,
    );

    // Each channel reply reached the vendor, under one Idempotency-Key per reply (a resend reuses it).
    const outbound = await d.db.query<{ id: string; status: string }>(`select id, status from outbound_messages where channel = 'messaging-a'`);
    expect(outbound.rows).toHaveLength(sids.length);
    expect(outbound.rows.filter((o) => o.status !== 'sent')).toEqual([]);
    const keys = new Set(vendor.sends('/Messages.json').map((s) => s.headers['idempotency-key']));
    expect([...keys].sort()).toEqual(outbound.rows.map((o) => o.id).sort());
  }, 240_000);
});
