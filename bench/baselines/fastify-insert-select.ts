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
import { importSPKI, jwtVerify } from 'jose';
import pg from 'pg';

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`fastify-insert-select: ${name} must be set`);
    process.exit(2);
  }
  return value;
}

const port = Number(required('PORT'));
const host = process.env.HOST || '127.0.0.1';
const publicKey = await importSPKI(required('JWT_PUBLIC_KEY'), 'RS256');
const pool = new pg.Pool({ connectionString: required('DATABASE_URL'), max: 10 });
pool.on('error', (err) => console.error(`fastify-insert-select: idle client error: ${err.message}`));

const USER_BY_ID = 'select id, email, name, platform_role, status, password_changed_at from users where id = $1';
const INSERT_NOTIFICATION =
  'insert into app_notifications (recipient_user_id, event_type, title, body, meta) values ($1, $2, $3, $4, $5) returning *';

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
  const match = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '');
  if (!match) return reply.code(401).send({ error: 'unauthorized' });
  let sub: string | undefined;
  try {
    const { payload } = await jwtVerify(match[1] ?? '', publicKey, { algorithms: ['RS256'] });
    sub = payload.sub;
  } catch {
    return reply.code(401).send({ error: 'unauthorized' });
  }
  if (!sub) return reply.code(401).send({ error: 'unauthorized' });

  const body = (request.body ?? {}) as Body;
  if (typeof body.userId !== 'string' || typeof body.type !== 'string' || typeof body.message !== 'string') {
    return reply.code(400).send({ error: 'userId, type and message are required strings' });
  }
  const title = typeof body.title === 'string' ? body.title : null;
  const meta = typeof body.meta === 'object' && body.meta !== null ? body.meta : null;

  const { rows: users } = await pool.query(USER_BY_ID, [sub]);
  if (users.length === 0) return reply.code(401).send({ error: 'unauthorized' });

  const { rows } = await pool.query(INSERT_NOTIFICATION, [body.userId, body.type, title, body.message, meta]);
  return reply.code(201).send(rows[0]);
});

const shutdown = () => {
  void app
    .close()
    .then(() => pool.end())
    .finally(() => process.exit(0));
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);

await app.listen({ port, host });
