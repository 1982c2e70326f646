/**
 * Baseline of the Expert attention list: `GET /expert-queue` verifies the RS256 bearer token with
 * jose and runs one SELECT through a pg Pool of 10: the newest 50 `queue_items` by `updated_at`
 * (ties by id) of the orgs the caller reaches, and answers `{ items, nextCursor: null }`. An
 * org-wide role (superadmin, account_manager, ai_operator, from the token's `platformRole`) reaches
 * every org; an Expert the orgs of their grants, read in the same statement. No user read, no
 * joins for the org and Specialist names: the floor, not a fair re-implementation.
 *
 * Env: PORT (required), DATABASE_URL (required), JWT_PUBLIC_KEY (SPKI PEM, required),
 * HOST (default 127.0.0.1).
 */
import Fastify from 'fastify';
import { QUEUE_ALL_ORGS_SQL, QUEUE_GRANTED_ORGS_SQL } from '../lib/queue-sql.js';
import { bearerVerifier, benchPool, serve } from './shared.js';

const NAME = 'fastify-expert-queue';
const verify = await bearerVerifier(NAME);
const pool = benchPool(NAME);

const ORG_WIDE_ROLES = new Set(['superadmin', 'account_manager', 'ai_operator']);

const app = Fastify({ logger: false });

app.get('/expert-queue', async (request, reply) => {
  const claims = await verify(request.headers.authorization);
  if (!claims) return reply.code(401).send({ error: 'unauthorized' });
  const role = typeof claims.platformRole === 'string' ? claims.platformRole : '';
  let rows: unknown[];
  if (ORG_WIDE_ROLES.has(role)) rows = (await pool.query(QUEUE_ALL_ORGS_SQL)).rows;
  else if (role === 'expert') rows = (await pool.query(QUEUE_GRANTED_ORGS_SQL, [claims.sub])).rows;
  else return reply.code(403).send({ error: 'forbidden' });
  return { items: rows, nextCursor: null };
});

await serve(NAME, app, pool);
