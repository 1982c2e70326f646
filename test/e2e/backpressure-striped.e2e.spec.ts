import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMISSION_STRIPED_ROOM } from '../../src/modules/channels/channels.repository.js';
import { IngressService } from '../../src/modules/channels/ingress.service.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { rows, withInboundWorkerHeld } from '../support/inbound.js';
import { FakeProvider } from '../support/llm-provider.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chatACall, connectVerified } from '../support/webhooks.js';

const PASSWORD = 'demo1234';
const CHAT_A_SECRET = 'chat-a-signing-secret';
/** Far enough above the stripes that admissions first run side by side, then one at a time near the limit. */
const MAX_DEPTH = 3 * ADMISSION_STRIPED_ROOM;
const CALLS = MAX_DEPTH + 40;

/**
 * Spec 7.1 with a limit above the admission's stripes: admissions far below INBOUND_QUEUE_MAX_DEPTH
 * run side by side, the ones near it one at a time; together they still stop exactly at the limit.
 */
describe('inbound backpressure, striped admissions (spec 7.1)', () => {
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
        INBOUND_QUEUE_MAX_DEPTH: String(MAX_DEPTH),
        CHAT_A_SIGNING_SECRET: CHAT_A_SECRET,
      },
    });
    db = app.running.app.get(DbService);
    const am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    const acmeId = (await app.get('/api/auth/me', { token: await app.login('client@acme.demo.invalid', PASSWORD) })).body.orgMemberships[0].orgId;
    await connectVerified(app, acmeId, { channel: 'chat-a', externalId: 'T-STRIPED', config: { botUserId: 'UBOT' }, secrets: { botToken: 'xoxb-test' } }, am);
  });
  afterAll(async () => {
    await provider.stop();
    await app?.close();
  });

  it(
    `admits ${CALLS} concurrent calls at the door up to the limit of ${MAX_DEPTH}, each once, and refuses the rest with 503; a redelivery of a kept event is still acknowledged`,
    { timeout: 120_000 },
    async () => {
      await db.root.execute(sql`delete from inbound_events`);
      // The worker is held and the Specialist's model hangs: no admitted event leaves the queue during the burst.
      provider.mode = 'hang';
      const ingress = app.running.app.get(IngressService);
      const call = (n: number) => {
        const c = chatACall(CHAT_A_SECRET, {
          type: 'event_callback',
          team_id: 'T-STRIPED',
          event_id: `Ev-${n}`,
          event: { type: 'message', channel: 'D1', channel_type: 'im', user: 'U1', text: `hello ${n}`, ts: `1700000000.${n}` },
        });
        return ingress.chatA({ rawBody: Buffer.from(c.body), headers: c.headers, url: c.path });
      };
      await withInboundWorkerHeld(app, async () => {
        const outcomes = await Promise.allSettled(Array.from({ length: CALLS }, (_, i) => call(i)));
        const admitted = outcomes.filter((o) => o.status === 'fulfilled');
        const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        expect(admitted.map((o) => o.value.body)).toEqual(Array.from({ length: MAX_DEPTH }, () => ({ ok: true })));
        for (const r of refused) expect(r.reason).toMatchObject({ code: 'backpressure', headers: { 'retry-after': '30' } });
        const kept = await rows<{ event_key: string; jobs: number }>(
          db,
          sql`select e.event_key, (select count(*)::int from pgboss.job j where j.name = 'channels.inbound' and j.data->>'eventId' = e.id::text) as jobs from inbound_events e`,
        );
        expect(kept).toHaveLength(MAX_DEPTH);
        expect(new Set(kept.map((k) => k.event_key)).size).toBe(MAX_DEPTH);
        // Accepted is kept and queued: one job per kept event.
        expect(kept.every((k) => k.jobs === 1)).toBe(true);
        // The queue is full, and a redelivery of an event it holds is acknowledged, not refused.
        const keptIndex = Number(kept[0]!.event_key.replace('T-STRIPED:Ev-', ''));
        expect((await call(keptIndex)).body).toEqual({ ok: true, duplicate: true });
        await expect(call(CALLS + 1)).rejects.toMatchObject({ code: 'backpressure' });
      });
    },
  );
});
