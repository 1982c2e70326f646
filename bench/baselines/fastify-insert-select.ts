/**
 * Baseline (c): the least work an authenticated "create a notification" can do. `POST /` verifies
 * the RS256 bearer token with jose, reads the caller's row of `users` by primary key (the auth
 * read: exactly one SELECT) and inserts one row into `app_notifications` (exactly one INSERT,
 * `returning *`) through a pg Pool of 10, then answers 201 with the row as JSON. The bench compares
 * the real server's `POST /api/notifications` against this.
 *
 * No validation library, no push, no transaction: the floor, not a fair re-implementation.
 *
 * Env: PORT (required), DATABASE_URL (required), JWT_PUBLIC_KEY (SPKI PEM, required),
 * HOST (default 127.0.0.1).
 */
import Fastify from 'fastify';
import { USER_BY_ID, bearerVerifier, benchPool, serve } from './shared.js';

const NAME = 'fastify-insert-select';
const verify = await bearerVerifier(NAME);
const pool = benchPool(NAME);

const INSERT_NOTIFICATION = 'insert into app_notifications (recipient_user_id, event_type, title, body, meta) values ($1, $2, $3, $4, $5) returning *';

interface Body {
  userId?: unknown;
  type?: unknown;
  message?: unknown;
  title?: unknown;
  meta?: unknown;
}

const app = Fastify({ logger: false });

/** Readiness for the bench's poller (it only sends GET). */
app.get('/ready', async () => ({ status: 'ok' }));

app.post('/', async (request, reply) => {
  const claims = await verify(request.headers.authorization);
  if (!claims) return reply.code(401).send({ error: 'unauthorized' });

  const body = (request.body ?? {}) as Body;
  if (typeof body.userId !== 'string' || typeof body.type !== 'string' || typeof body.message !== 'string') {
    return reply.code(400).send({ error: 'userId, type and message are required strings' });
  }
  const title = typeof body.title === 'string' ? body.title : null;
  const meta = typeof body.meta === 'object' && body.meta !== null ? body.meta : null;

  const { rows: users } = await pool.query(USER_BY_ID, [claims.sub]);
  if (users.length === 0) return reply.code(401).send({ error: 'unauthorized' });

  const { rows } = await pool.query(INSERT_NOTIFICATION, [body.userId, body.type, title, body.message, meta]);
  return reply.code(201).send(rows[0]);
});

await serve(NAME, app, pool);
