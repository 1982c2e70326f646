/**
 * Baseline (b): the least work an authenticated "who am I" can do. `GET /me` verifies the RS256
 * bearer token with jose and reads the user's row by primary key through a pg Pool of 10. The bench
 * compares the real server's `GET /api/auth/me` against this.
 *
 * Env: PORT (required), DATABASE_URL (required), JWT_PUBLIC_KEY (SPKI PEM, required),
 * HOST (default 127.0.0.1).
 */
import Fastify from 'fastify';
import { USER_BY_ID, bearerVerifier, benchPool, serve } from './shared.js';

const NAME = 'jose-pg';
const verify = await bearerVerifier(NAME);
const pool = benchPool(NAME);

const app = Fastify({ logger: false });

app.get('/me', async (request, reply) => {
  const claims = await verify(request.headers.authorization);
  if (!claims) return reply.code(401).send({ error: 'unauthorized' });
  const { rows } = await pool.query(USER_BY_ID, [claims.sub]);
  if (rows.length === 0) return reply.code(404).send({ error: 'not found' });
  return rows[0];
});

await serve(NAME, app, pool);
