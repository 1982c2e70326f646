import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IngressLoad, type IngressEnd } from '../../src/modules/channels/ingress-load.js';
import { IngressService } from '../../src/modules/channels/ingress.service.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { eventually, rows, withInboundWorkerHeld } from '../support/inbound.js';
import { FakeProvider } from '../support/llm-provider.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chatACall, connectVerified, emailCall, messagingACall, messagingBCall } from '../support/webhooks.js';

const PASSWORD = 'demo1234';
const PUBLIC_URL = 'https://service.example.com';
const CHAT_A_SECRET = 'chat-a-signing-secret';
const EMAIL_SECRET = 'email-inbound-secret';
const MESSAGING_A_TOKEN = 'messaging-a-auth-token';
const POOL_NUMBER = '+15550000001';
const MESSAGING_B_SECRET = 'messaging-b-webhook-secret-0123456789abcdef';
const MAX_DEPTH = 2;
const ALIAS = 'emilie.acme@workspace.example.com';
const CLIENT_NUMBER = '+15557654321';

type Call = { path: string; body: string; headers: Record<string, string> };
type Answer = Awaited<ReturnType<TestApp['request']>>;

/** The 503 of spec 7.1: its body, and Retry-After (BACKPRESSURE_RETRY_AFTER_S, default 30). */
function expect503(res: Answer) {
  expect(res.status).toBe(503);
  expect(res.body).toEqual({ statusCode: 503, code: 'backpressure', error: 'ServiceUnavailable', message: expect.any(String) });
  expect(res.headers.get('retry-after')).toBe('30');
}

/**
 * Spec 7.1: "503 backpressure applies only to the inbound channel webhooks of section 4.8 (chat-a
 * events, email inbound, messaging-a inbound, messaging-b webhook)", when the inbound queue holds
 * INBOUND_QUEUE_MAX_DEPTH events not yet processed.
 */
describe('inbound backpressure (spec 7.1)', () => {
  let app: TestApp;
  let db: DbService;
  const provider = new FakeProvider();

  const send = (call: Call) => app.request('POST', call.path, { body: call.body, headers: call.headers });
  /** A signed call of each backpressured route, as its vendor makes it; `n` makes the event distinct. */
  const calls: Record<string, (n: string) => Call> = {
    'chat-a': (n) =>
      chatACall(CHAT_A_SECRET, {
        type: 'event_callback',
        team_id: 'T-BACKPRESSURE',
        event_id: `Ev-${n}`,
        event: { type: 'message', channel: 'D1', channel_type: 'im', user: 'U1', text: `hello ${n}`, ts: `1700000000.${n}` },
      }),
    'messaging-a': (n) => messagingACall(PUBLIC_URL, MESSAGING_A_TOKEN, { MessageSid: `SM-${n}`, From: CLIENT_NUMBER, To: POOL_NUMBER, Body: `hello ${n}` }),
    'messaging-b': (n) =>
      messagingBCall(MESSAGING_B_SECRET, {
        update_id: Number(n.replace(/\D/g, '')) || 1,
        message: { message_id: 1, date: 1700000000, chat: { id: 42, type: 'private' }, from: { id: 42, is_bot: false, first_name: 'C' }, text: `hello ${n}` },
      }),
    email: (n) => emailCall(EMAIL_SECRET, `From: client@b.example.com\r\nTo: ${ALIAS}\r\nMessage-ID: <${n}@b.example.com>\r\nSubject: hi\r\n\r\nhello ${n}\r\n`),
  };
  /** Each route's event key for `n` (how the door keeps it). */
  let keyOf: Record<string, (n: string) => string>;

  /** Fills the queue with events a worker holds (processing, its lease fresh): the sweep leaves them be. */
  async function fillQueue(): Promise<void> {
    await db.root.execute(
      sql`insert into inbound_events (channel, event_key, body, status, processed_at) values ('email', 'held-1', '{}', 'processing', clock_timestamp()), ('email', 'held-2', '{}', 'processing', clock_timestamp())`,
    );
  }
  /** Lets the held events go, and waits until the worker has finished every other open event. */
  async function drainQueue(): Promise<void> {
    await db.root.execute(sql`delete from inbound_events where event_key in ('held-1', 'held-2')`);
    await eventually('an empty inbound queue', async () =>
      (await rows<{ n: number }>(db, sql`select count(*)::int as n from inbound_events where status in ('queued', 'processing')`))[0]!.n === 0 ? true : undefined,
    );
  }
  const stored = async (channel: string, key: string) => (await rows<{ n: number }>(db, sql`select count(*)::int as n from inbound_events where channel = ${channel} and event_key = ${key}`))[0]!.n;

  beforeAll(async () => {
    const llmUrl = await provider.start();
    app = await startTestApp({
      env: {
        PUBLIC_URL,
        LLM_PROVIDER: 'openai-compatible',
        LLM_BASE_URL: llmUrl,
        LLM_MODEL: 'gpt-4o-mini',
        LLM_TIMEOUT_MS: '30000',
        INBOUND_QUEUE_MAX_DEPTH: String(MAX_DEPTH),
        CHAT_A_SIGNING_SECRET: CHAT_A_SECRET,
        EMAIL_INBOUND_SIGNING_SECRET: EMAIL_SECRET,
        MESSAGING_A_AUTH_TOKEN: MESSAGING_A_TOKEN,
        MESSAGING_A_NUMBER_POOL: POOL_NUMBER,
      },
    });
    db = app.running.app.get(DbService);
    // Every route's events are routed to acme, so each one is a message with a turn to run.
    const am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    const acmeId = (await app.get('/api/auth/me', { token: await app.login('client@acme.demo.invalid', PASSWORD) })).body.orgMemberships[0].orgId;
    await connectVerified(app, acmeId, { channel: 'chat-a', externalId: 'T-BACKPRESSURE', config: { botUserId: 'UBOT' }, secrets: { botToken: 'xoxb-test' } }, am);
    await connectVerified(app, acmeId, { channel: 'messaging-a', config: { whitelist: [CLIENT_NUMBER] }, secrets: { accountSid: 'AC123', authToken: 'sender-token' } }, am);
    const { id: integrationId } = await connectVerified(app, acmeId, { channel: 'messaging-b', secrets: { webhookSecret: MESSAGING_B_SECRET, botToken: '123:abc' } }, am);
    keyOf = {
      'chat-a': (n) => `T-BACKPRESSURE:Ev-${n}`,
      'messaging-a': (n) => `SM-${n}`,
      'messaging-b': (n) => `${integrationId}:${Number(n.replace(/\D/g, '')) || 1}`,
      email: (n) => `<${n}@b.example.com>`,
    };
  });
  afterAll(async () => {
    await provider.stop();
    await app?.close();
  });

  for (const channel of ['chat-a', 'messaging-a', 'messaging-b', 'email']) {
    it(`${channel}: a full queue answers 503 backpressure with Retry-After and keeps nothing; once drained, the same call is accepted`, async () => {
      const n = `${channel.replace(/\W/g, '')}1001`;
      await fillQueue();
      // How each admission ended, as the inbound worker's IngressLoad hears it.
      const load = app.running.app.get(IngressLoad);
      const ends: Array<IngressEnd | undefined> = [];
      const begin = load.begin.bind(load);
      const spy = vi.spyOn(load, 'begin').mockImplementation(() => {
        const end = begin();
        return (how) => {
          ends.push(how);
          end(how);
        };
      });
      try {
        const refused = await send(calls[channel]!(n));
        expect503(refused);
        expect(await stored(channel, keyOf[channel]!(n))).toBe(0);
        // Refused for a full queue: the worker stops giving way, since processing makes room.
        expect(ends).toEqual(['full']);
      } finally {
        spy.mockRestore();
        await drainQueue();
      }
      const accepted = await send(calls[channel]!(n));
      expect(accepted.status).toBe(200);
      expect(await stored(channel, keyOf[channel]!(n))).toBe(1);
    });
  }

  it('admits a concurrent burst of 40 (all four routes) up to the limit of 2 and answers every other call 503', { timeout: 60_000 }, async () => {
    await db.root.execute(sql`delete from inbound_events`);
    // The worker is held and the Specialist's model hangs: no room is made while the burst runs.
    provider.mode = 'hang';
    await withInboundWorkerHeld(app, async () => {
      const burst = Array.from({ length: 40 }, (_, i) => calls[['chat-a', 'messaging-a', 'messaging-b', 'email'][i % 4]!]!(`2${String(i).padStart(3, '0')}`));
      const answers = await Promise.all(burst.map((call) => send(call)));
      const admitted = answers.filter((a) => a.status === 200);
      for (const res of answers.filter((a) => a.status !== 200)) expect503(res);
      expect(admitted).toHaveLength(MAX_DEPTH);
      const kept = await rows<{ status: string }>(db, sql`select status from inbound_events`);
      expect(kept).toHaveLength(MAX_DEPTH);
      expect(kept.every((k) => k.status === 'queued' || k.status === 'processing')).toBe(true);
    });
  });

  it('admits 40 concurrent calls at the door itself (no HTTP in between to spread them) up to the limit of 2', { timeout: 60_000 }, async () => {
    // Over HTTP a loaded server takes calls one after another, which can hide a race between the
    // count and the insert; here all 40 reach the depth check together.
    await db.root.execute(sql`delete from inbound_events`);
    provider.mode = 'hang';
    const ingress = app.running.app.get(IngressService);
    await withInboundWorkerHeld(app, async () => {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) => {
          const call = calls['chat-a']!(`3${String(i).padStart(3, '0')}`);
          return ingress.chatA({ rawBody: Buffer.from(call.body), headers: call.headers, url: call.path });
        }),
      );
      const admitted = outcomes.filter((o) => o.status === 'fulfilled');
      const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(admitted.map((o) => o.value.body)).toEqual([{ ok: true }, { ok: true }]);
      for (const r of refused) expect(r.reason).toMatchObject({ code: 'backpressure', headers: { 'retry-after': '30' } });
      expect(await rows<{ id: string }>(db, sql`select id from inbound_events`)).toHaveLength(MAX_DEPTH);
    });
  });
});
