/**
 * Baseline of "signed chat-a events accepted": the least work that accepts a webhook call durably.
 * `POST /chat-a/events` checks `X-Chat-A-Signature: v0=<hex HMAC-SHA256(secret, "v0:" + ts + ":" +
 * raw body)>` over the raw body bytes (constant-time compare) with `X-Chat-A-Request-Timestamp`
 * within 300 s, as the server does; then inserts the raw event into its own table
 * `bench_chat_a_events` (one INSERT, unique per `<team_id>:<event_id>`, `on conflict do nothing`)
 * through a pg Pool of 10, and answers 200 `{ ok: true }` (`duplicate: true` for a redelivery).
 * The bench compares the server's `POST /api/channels/chat-a/events` against this.
 *
 * No throttle, no backpressure check, no job, no worker: the floor, not a fair re-implementation.
 *
 * Env: PORT (required), DATABASE_URL (required), CHAT_A_SIGNING_SECRET (required),
 * HOST (default 127.0.0.1).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import { benchPool, required, serve } from './shared.js';

const NAME = 'fastify-chat-a-events';
const secret = required(NAME, 'CHAT_A_SIGNING_SECRET');
const pool = benchPool(NAME);
const MAX_AGE_S = 300;

await pool.query(
  `create table if not exists bench_chat_a_events (
     id bigserial primary key,
     event_key text not null unique,
     body text not null,
     received_at timestamptz not null default clock_timestamp()
   )`,
);

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function verified(raw: Buffer, ts: string | undefined, signature: string | undefined): boolean {
  if (!ts || !signature || !/^\d{1,12}$/.test(ts)) return false;
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(ts)) > MAX_AGE_S) return false;
  const expected = Buffer.from(`v0=${createHmac('sha256', secret).update(`v0:${ts}:`).update(raw).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const app = Fastify({ logger: false });
// The signature covers the bytes as sent: keep the body raw.
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

/** Readiness for the bench's poller (it only sends GET). */
app.get('/ready', async () => ({ status: 'ok' }));

app.post('/chat-a/events', async (request, reply) => {
  const raw = request.body;
  if (!Buffer.isBuffer(raw) || raw.length === 0) return reply.code(401).send({ error: 'unauthorized' });
  if (!verified(raw, header(request.headers['x-chat-a-request-timestamp']), header(request.headers['x-chat-a-signature']))) {
    return reply.code(401).send({ error: 'unauthorized' });
  }
  let envelope: { team_id?: unknown; event_id?: unknown };
  try {
    envelope = JSON.parse(raw.toString('utf8')) as typeof envelope;
  } catch {
    return reply.code(400).send({ error: 'the body is not JSON' });
  }
  const key = `${String(envelope.team_id ?? 'unknown')}:${String(envelope.event_id ?? '')}`;
  const { rowCount } = await pool.query('insert into bench_chat_a_events (event_key, body) values ($1, $2) on conflict (event_key) do nothing', [key, raw.toString('utf8')]);
  return rowCount === 1 ? { ok: true } : { ok: true, duplicate: true };
});

await serve(NAME, app, pool);
