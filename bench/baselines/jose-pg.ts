/**
 * Baseline (b): the least work an authenticated "who am I" can do. `GET /me` verifies the RS256
 * bearer token with jose and reads the user's row by primary key through a pg Pool of 10. The bench
 * compares the real server's `GET /api/auth/me` against this.
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
    console.error(`jose-pg: ${name} must be set`);
    process.exit(2);
  }
  return value;
}

const port = Number(required('PORT'));
const host = process.env.HOST || '127.0.0.1';
const publicKey = await importSPKI(required('JWT_PUBLIC_KEY'), 'RS256');
const pool = new pg.Pool({ connectionString: required('DATABASE_URL'), max: 10 });
pool.on('error', (err) => console.error(`jose-pg: idle client error: ${err.message}`));

const USER_BY_ID =
  'select id, email, name, platform_role, status, password_changed_at from users where id = $1';

const app = Fastify({ logger: false });

app.get('/me', async (request, reply) => {
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
  const { rows } = await pool.query(USER_BY_ID, [sub]);
  if (rows.length === 0) return reply.code(404).send({ error: 'not found' });
  return rows[0];
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
