import { sql, type SQL } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelsRepository } from '../../src/modules/channels/channels.repository.js';
import { IngressService } from '../../src/modules/channels/ingress.service.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { QueueService } from '../../src/platform/queue/queue.service.js';
import { eventually, processedEvent, rows, withInboundWorkerHeld } from '../support/inbound.js';
import { FakeProvider } from '../support/llm-provider.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chatACall, connectVerified, messagingACall } from '../support/webhooks.js';

const PASSWORD = 'demo1234';
const CHAT_A_SECRET = 'chat-a-signing-secret';
const PUBLIC_URL = 'https://service.example.com';
const MESSAGING_A_TOKEN = 'messaging-a-auth-token';
const POOL_NUMBER = '+15550000001';

/**
 * A backpressured route keeps the event and writes its job in one round trip (its values written
 * into the statements as literals): the job exists if and only if the event was kept, once per
 * event, as pg-boss's own send would write it. The event's text is kept exactly (quotes and
 * backslashes included). A body that cannot be stored is refused with a 4xx.
 */
describe('inbound admission in one round trip', () => {
  let app: TestApp;
  let db: DbService;
  const provider = new FakeProvider();

  beforeAll(async () => {
    const llmUrl = await provider.start();
    app = await startTestApp({
      env: {
        LLM_PROVIDER: 'openai-compatible',
        LLM_BASE_URL: llmUrl,
        LLM_MODEL: 'gpt-4o-mini',
        LLM_TIMEOUT_MS: '30000',
        CHAT_A_SIGNING_SECRET: CHAT_A_SECRET,
        STRANDED_AFTER_MS: '1000',
        PUBLIC_URL,
        MESSAGING_A_AUTH_TOKEN: MESSAGING_A_TOKEN,
        MESSAGING_A_NUMBER_POOL: POOL_NUMBER,
      },
    });
    db = app.running.app.get(DbService);
    const am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    const acmeId = (await app.get('/api/auth/me', { token: await app.login('client@acme.demo.invalid', PASSWORD) })).body.orgMemberships[0].orgId;
    await connectVerified(app, acmeId, { channel: 'chat-a', externalId: 'T-LOST', config: { botUserId: 'UBOT' }, secrets: { botToken: 'xoxb-test' } }, am);
  });
  afterAll(async () => {
    await provider.stop();
    await app?.close();
  });

  it('keeps the event and its one job in one statement, its text byte for byte, and processes it once', { timeout: 60_000 }, async () => {
    const text = `it's a "quote" and a back\\slash \\' ; select 1; -- $1`;
    const call = () =>
      chatACall(CHAT_A_SECRET, {
        type: 'event_callback',
        team_id: 'T-LOST',
        event_id: 'Ev-once',
        event: { type: 'message', channel: 'D1', channel_type: 'im', user: 'U1', text, ts: '1700000001.000100' },
      });
    const c = call();
    const ingress = app.running.app.get(IngressService);
    expect((await ingress.chatA({ rawBody: Buffer.from(c.body), headers: c.headers, url: c.path })).body).toEqual({ ok: true });
    // The vendor's retry of the same event: acknowledged, and neither a second event nor a second job.
    const again = call();
    expect((await ingress.chatA({ rawBody: Buffer.from(again.body), headers: again.headers, url: again.path })).body).toEqual({ ok: true, duplicate: true });

    const [kept] = await rows<{ id: string; body: string; events: number; jobs: number }>(
      db,
      sql`select e.id, e.body, (select count(*)::int from inbound_events x where x.event_key = e.event_key) as events,
            (select count(*)::int from pgboss.job j where j.name = 'channels.inbound' and j.data->>'eventId' = e.id::text) as jobs
          from inbound_events e where e.event_key = 'T-LOST:Ev-once'`,
    );
    // Kept byte for byte (its values travel as literals), with exactly one job.
    expect(kept).toMatchObject({ body: c.body, events: 1, jobs: 1 });

    const done = await processedEvent(db, 'chat-a', 'T-LOST:Ev-once');
    expect(done).toMatchObject({ status: 'done', last_error: null });
    const messages = await rows<{ role: string; content: string }>(db, sql`select role, content from conversation_messages where conversation_id = ${done.conversation_id} order by created_at, id`);
    expect(messages.filter((m) => m.role === 'client').map((m) => m.content)).toEqual([text]);
    expect(messages.filter((m) => m.role === 'specialist')).toHaveLength(1);
  });

  it('writes the job as pg-boss would send it: the same queue policy, retries, expiry and retention', async () => {
    const queue = app.running.app.get(QueueService);
    const [sent, written] = [randomUUID(), randomUUID()];
    await queue.send('channels.inbound', { eventId: sent }, { singletonKey: sent });
    await db.db.execute(queue.insertJobsFrom('channels.inbound', sql`select jsonb_build_object('eventId', ${written}::text) as data, ${written}::text as singleton_key`));
    // The columns a worker's fetch does not change (nonexistent events: their jobs end at once).
    const jobs = await rows<Record<string, unknown>>(
      db,
      sql`select data->>'eventId' as "eventId", name, priority, singleton_key, singleton_on, dead_letter, expire_in::text, (keep_until - start_after)::text as kept_for,
            retry_limit, retry_delay, retry_backoff, policy, (start_after - created_on)::text as delayed
          from pgboss.job where name = 'channels.inbound' and data->>'eventId' in (${sent}, ${written})`,
    );
    const bySent = jobs.find((j) => j.eventId === sent)!;
    const byStatement = jobs.find((j) => j.eventId === written)!;
    expect(jobs).toHaveLength(2);
    expect({ ...byStatement, eventId: sent, singleton_key: sent }).toEqual(bySent);
    expect(bySent).toMatchObject({ retry_limit: expect.any(Number), policy: expect.any(String) });
  });

  it('admits a batch in one statement: its new events in order while they fit, a redelivery and a copy within the batch acknowledged, one job per kept event', async () => {
    const repo = app.running.app.get(ChannelsRepository);
    const queue = app.running.app.get(QueueService);
    const jobsFor = (keptIds: SQL) => queue.insertJobsFrom('channels.inbound', sql`select jsonb_build_object('eventId', e.id) as data, e.id::text as singleton_key from (${keptIds}) e`);
    const event = (key: string) => ({ channel: 'chat-a' as const, eventKey: `T-BATCH:${key}`, body: `{"n":"${key}"}`, meta: { workspace: 'T-BATCH' } });
    // Nothing else open (the first test's event is done): the room is the count plus what fits.
    await eventually('an empty inbound queue', async () =>
      (await rows<{ n: number }>(db, sql`select count(*)::int as n from inbound_events where status in ('queued', 'processing')`))[0]!.n === 0 ? true : undefined,
    );
    // The worker is held: the kept event stays open while the batch counts it.
    await withInboundWorkerHeld(app, async () => {
      const [before] = await repo.unscopedAdmitEvents('exclusive', [event('kept-before')], 1, jobsFor);
      expect(before).toMatchObject({ kept: true });
      const admitted = await repo.unscopedAdmitEvents('exclusive', [event('a'), event('kept-before'), event('b'), event('a'), event('c')], 3, jobsFor);
      // One open already, room for three: a and b fit, c does not.
      expect(admitted).toEqual([
        { kept: true, id: expect.any(String) },
        { kept: false, full: false },
        { kept: true, id: expect.any(String) },
        { kept: false, full: false },
        { kept: false, full: true },
      ]);
      const kept = await rows<{ event_key: string; body: string; jobs: number }>(
        db,
        sql`select e.event_key, e.body, (select count(*)::int from pgboss.job j where j.name = 'channels.inbound' and j.data->>'eventId' = e.id::text) as jobs
            from inbound_events e where e.event_key like 'T-BATCH:%' order by e.event_key`,
      );
      expect(kept).toEqual([
        { event_key: 'T-BATCH:a', body: '{"n":"a"}', jobs: 1 },
        { event_key: 'T-BATCH:b', body: '{"n":"b"}', jobs: 1 },
        { event_key: 'T-BATCH:kept-before', body: '{"n":"kept-before"}', jobs: 1 },
      ]);
      expect(admitted[0]).toEqual({ kept: true, id: (await rows<{ id: string }>(db, sql`select id from inbound_events where event_key = 'T-BATCH:a'`))[0]!.id });
    });
  });

  it('refuses a signed body holding a NUL byte with 400 validation_failed, and keeps nothing', async () => {
    const call = messagingACall(PUBLIC_URL, MESSAGING_A_TOKEN, { MessageSid: 'SM-nul', From: '+15557654321', To: POOL_NUMBER, Body: 'a\u0000b' });
    // The vendor's signature covers the decoded parameters: a raw NUL byte in the form is still signed.
    const body = call.body.replace('%00', '\u0000');
    expect(body).toContain('\u0000');
    const res = await app.request('POST', call.path, { body, headers: call.headers });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, code: 'validation_failed', details: [{ field: 'body', message: expect.stringContaining('NUL') }] });
    expect(await rows(db, sql`select 1 from inbound_events where channel = 'messaging-a'`)).toEqual([]);
  });
});
