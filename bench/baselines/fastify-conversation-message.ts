/**
 * Baseline of "client message sent to reply stored": the least work that stores a client message
 * and its reply. `POST /conversations/:id/messages {content}` verifies the RS256 bearer token with
 * jose, reads the caller's row of `users` by primary key (the auth read), then in one transaction
 * through a pg Pool of 10 inserts the client message (into a conversation of an org the caller is
 * a member of: 404 otherwise) and the reply row (a fixed text, from the conversation's Specialist,
 * `reply_to_message_id` the client message), and answers 201 with the message and its `reply`.
 * The bench compares the real server's `POST /api/conversations/:id/messages` against this.
 *
 * No agent turn, no ledger row, no status update, no quota, no push: the floor, not a fair
 * re-implementation.
 *
 * Env: PORT (required), DATABASE_URL (required), JWT_PUBLIC_KEY (SPKI PEM, required),
 * HOST (default 127.0.0.1).
 */
import Fastify from 'fastify';
import { USER_BY_ID, bearerVerifier, benchPool, serve } from './shared.js';

const NAME = 'fastify-conversation-message';
const verify = await bearerVerifier(NAME);
const pool = benchPool(NAME);

const REPLY_TEXT = 'Thank you for your message: this is the fixed reply of the baseline.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const INSERT_CLIENT_MESSAGE = `
  insert into conversation_messages (conversation_id, org_id, role, sender_id, content)
  select c.id, c.org_id, 'client', $2, $3 from conversations c
  where c.id = $1 and c.org_id in (select m.org_id from org_memberships m where m.user_id = $2)
  returning *`;
const INSERT_REPLY = `
  insert into conversation_messages (conversation_id, org_id, role, sender_id, content, reply_to_message_id)
  select c.id, c.org_id, 'specialist', c.specialist_id, $2, $3 from conversations c where c.id = $1
  returning *`;

const app = Fastify({ logger: false });

/** Readiness for the bench's poller (it only sends GET). */
app.get('/ready', async () => ({ status: 'ok' }));

app.post<{ Params: { id: string }; Body: { content?: unknown } }>('/conversations/:id/messages', async (request, reply) => {
  const claims = await verify(request.headers.authorization);
  if (!claims) return reply.code(401).send({ error: 'unauthorized' });
  const content = typeof request.body?.content === 'string' ? request.body.content.trim() : '';
  if (content === '' || !UUID.test(request.params.id)) return reply.code(400).send({ error: 'content is a required string' });

  const { rows: users } = await pool.query(USER_BY_ID, [claims.sub]);
  if (users.length === 0) return reply.code(401).send({ error: 'unauthorized' });

  const client = await pool.connect();
  try {
    await client.query('begin');
    const { rows: messages } = await client.query<{ id: string }>(INSERT_CLIENT_MESSAGE, [request.params.id, claims.sub, content]);
    const message = messages[0];
    if (!message) {
      await client.query('rollback');
      return reply.code(404).send({ error: 'not found' });
    }
    const { rows: replies } = await client.query<Record<string, unknown>>(INSERT_REPLY, [request.params.id, REPLY_TEXT, message.id]);
    await client.query('commit');
    return reply.code(201).send({ ...message, reply: replies[0] });
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
});

await serve(NAME, app, pool);
