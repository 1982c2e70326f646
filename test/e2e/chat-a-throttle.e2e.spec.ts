import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chatACall } from '../support/webhooks.js';

const CHAT_A_SECRET = 'chat-a-signing-secret';
const WORKSPACE = 'T-THROTTLE';

type Answer = Awaited<ReturnType<TestApp['request']>>;

const accepted = (res: Answer) => res.status === 200 && (res.body as { ok?: boolean; duplicate?: boolean }).ok === true && (res.body as { duplicate?: boolean }).duplicate === undefined;
const duplicate = (res: Answer) => res.status === 200 && (res.body as { duplicate?: boolean }).duplicate === true;
const event = (eventId: string, team = WORKSPACE) =>
  chatACall(CHAT_A_SECRET, { type: 'event_callback', team_id: team, event_id: eventId, event: { type: 'message', channel: 'C1', user: 'U1', text: `event ${eventId}`, ts: '1700000000.000100' } });
/** The vendor's redelivery of an event it thinks was lost: the same body, with its retry headers. */
const redelivery = (eventId: string, n: number) => ({ ...event(eventId), retry: { 'x-chat-a-retry-num': String(n), 'x-chat-a-retry-reason': 'http_timeout' } });

/** The window of spec 8 (60 000 ms): the reset lies within 60 s from now. */
function expectWindow(res: Answer) {
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  expect(reset).toBeGreaterThan(Date.now() / 1000 - 1);
  expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
}

/**
 * Spec 8: "chat-a webhook throttle: 1000 requests per 60000 ms window", per workspace, answered
 * with the 429 of spec 7.1. A vendor redelivers an event it thinks was lost (same event id): those
 * are acknowledged as duplicates and never spend the budget.
 */
describe('chat-a webhook throttle (spec 8)', () => {
  let app: TestApp;
  const send = (call: ReturnType<typeof chatACall> & { retry?: Record<string, string> }) => app.request('POST', call.path, { body: call.body, headers: { ...call.headers, ...call.retry } });

  describe('the default: 1000 requests per 60 s', () => {
    beforeAll(async () => {
      app = await startTestApp({ env: { CHAT_A_SIGNING_SECRET: CHAT_A_SECRET } });
    });
    afterAll(async () => {
      await app?.close();
    });

    it('counts each new event against 1000 per 60 s window, and redeliveries not at all', async () => {
      const first = await send(event('Ev-1'));
      expect(accepted(first)).toBe(true);
      expect(first.headers.get('x-ratelimit-limit')).toBe('1000');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('999');
      expectWindow(first);
      for (let i = 1; i <= 5; i++) {
        const again = await send(redelivery('Ev-1', i));
        expect(duplicate(again)).toBe(true);
        expect(again.headers.get('x-ratelimit-remaining')).toBeNull();
      }
      const second = await send(event('Ev-2'));
      expect(accepted(second)).toBe(true);
      expect(second.headers.get('x-ratelimit-limit')).toBe('1000');
      expect(second.headers.get('x-ratelimit-remaining')).toBe('998');
    });
  });

  describe('the end of the budget (CHAT_A_WEBHOOK_THROTTLE_PER_MINUTE=40, so that a run fits in the window)', () => {
    const LIMIT = 40;
    beforeAll(async () => {
      app = await startTestApp({ env: { CHAT_A_SIGNING_SECRET: CHAT_A_SECRET, CHAT_A_WEBHOOK_THROTTLE_PER_MINUTE: String(LIMIT) } });
    });
    afterAll(async () => {
      await app?.close();
    });

    it(`takes ${LIMIT} distinct events in the window and refuses the next with rate_limit; redeliveries spend nothing and are still acknowledged`, { timeout: 60_000 }, async () => {
      // One event, then the vendor's 20 redeliveries of it.
      expect(accepted(await send(event('Ev-A')))).toBe(true);
      for (let i = 1; i <= 20; i++) expect(duplicate(await send(redelivery('Ev-A', i)))).toBe(true);
      // Ten copies of another event at once: one is kept, the others are duplicates (a copy that
      // passed the duplicate check with its twin gives its point back when the twin wins the insert).
      const copies = await Promise.all(Array.from({ length: 10 }, () => send(event('Ev-B'))));
      expect(copies.filter(accepted)).toHaveLength(1);
      expect(copies.filter(duplicate)).toHaveLength(9);

      // LIMIT - 2 more distinct events: LIMIT in all, every one accepted.
      const answers = await Promise.all(Array.from({ length: LIMIT - 2 }, (_, i) => send(event(`Ev-${i}`))));
      expect(answers.filter((a) => !accepted(a)).map((a) => `${a.status} ${JSON.stringify(a.body)}`)).toEqual([]);

      // The next distinct event in the window: the 429 of spec 7.1.
      const over = await send(event('Ev-over'));
      expect(over.status).toBe(429);
      expect(over.body).toEqual({ statusCode: 429, code: 'rate_limit', error: 'ThrottlerException', message: expect.any(String) });
      expect(over.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
      expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
      expectWindow(over);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(60);

      // A redelivery of a kept event is still acknowledged (it costs nothing), and another workspace has its own budget.
      expect(duplicate(await send(redelivery('Ev-A', 21)))).toBe(true);
      expect(accepted(await send(event('Ev-other', 'T-OTHER')))).toBe(true);
    });
  });
});
