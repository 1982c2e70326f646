import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LlmRunsRepository } from '../../src/modules/agent/llm-runs.repository.js';
import { ConversationsRepository } from '../../src/modules/conversations/conversations.repository.js';
import { TurnsService } from '../../src/modules/conversations/turns.service.js';
import { OrgAccessGate } from '../../src/platform/auth/org-access-gate.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { FakeProvider } from '../support/llm-provider.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A client message's turn is written claimed by the request that stores it (no claim statement of
 * its own): for STRANDED_AFTER_MS at first, so a request that dies leaves it to the sweeper as soon
 * as a queued turn would; a turn still running at half of that takes the full TURN_LEASE_MS, so
 * the sweeper never takes over a slow model call.
 */

const PASSWORD = 'demo1234';
const FIRST_CLAIM_MS = 1_000;
const TURN_LEASE_MS = 120_000;

async function rows<T>(query: Promise<unknown>): Promise<T[]> {
  const result = await query;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

interface TurnState {
  status: string;
  attempts: number;
  /** Seconds from now to the claim's expiry (null: no claim). */
  left_s: number | null;
}

describe('turn claims', () => {
  const provider = new FakeProvider();
  let app: TestApp;
  let db: DbService;
  let client: string;
  let acmeId: string;

  const turnOf = async (messageId: string): Promise<TurnState | undefined> =>
    (await rows<TurnState>(db.root.execute(sql`select status, attempts, extract(epoch from claimed_until - now())::float8 as left_s from conversation_turns where message_id = ${messageId}`)))[0];
  const repliesTo = async (messageId: string) => rows<{ id: string }>(db.root.execute(sql`select id from conversation_messages where reply_to_message_id = ${messageId}`));

  beforeAll(async () => {
    const baseUrl = await provider.start();
    app = await startTestApp({
      env: {
        LLM_PROVIDER: 'openai-compatible',
        LLM_BASE_URL: baseUrl,
        LLM_MODEL: 'gpt-4o-mini',
        LLM_API_KEY: 'test-key',
        STRANDED_AFTER_MS: String(FIRST_CLAIM_MS),
        TURN_LEASE_MS: String(TURN_LEASE_MS),
      },
    });
    db = app.running.app.get(DbService);
    client = await app.login('client@acme.demo.invalid', PASSWORD);
    acmeId = (await app.get('/api/auth/me', { token: client })).body.orgMemberships[0].orgId;
  });
  afterAll(async () => {
    await app?.close();
    await provider.stop();
  });

  it('writes the turn claimed with the message, extends the claim of a slow turn, and answers once', async () => {
    const conv = (await app.post('/api/conversations', {}, { token: client })).body;
    provider.delayMs = 3 * FIRST_CLAIM_MS;
    const before = provider.requests.length;
    const sending = app.post(`/api/conversations/${conv.id}/messages`, { content: 'A slow question' }, { token: client });
    // The message is stored with its turn before the model is asked.
    const clientMessage = async () => (await rows<{ id: string }>(db.root.execute(sql`select id from conversation_messages where conversation_id = ${conv.id} and role = 'client'`)))[0];
    await expect.poll(clientMessage, { timeout: 10_000, interval: 20 }).toBeDefined();
    const message = (await clientMessage())!;
    const first = await turnOf(message.id);
    expect(first).toMatchObject({ status: 'running', attempts: 1 });
    // Past half of the first claim, the turn holds the full lease while the model is still thinking.
    await expect.poll(async () => (await turnOf(message.id))?.left_s ?? 0, { timeout: 5_000, interval: 50 }).toBeGreaterThan(TURN_LEASE_MS / 1000 - 30);
    const sent = await sending;
    expect(sent.status).toBe(201);
    expect(sent.body.reply).toMatchObject({ role: 'specialist', content: 'Hello from a live model.' });
    // The sweeper (every half of STRANDED_AFTER_MS) never took the turn over: one model call, one reply.
    expect(provider.requests.length - before).toBe(1);
    expect(await turnOf(message.id)).toEqual({ status: 'done', attempts: 1, left_s: null });
    expect(await repliesTo(message.id)).toHaveLength(1);
    provider.delayMs = 0;
  });

  it("reads the org's access gate once for a client's message (its request's), and again for a turn the sweeper runs", async () => {
    const gate = app.running.app.get(OrgAccessGate);
    const conv = (await app.post('/api/conversations', {}, { token: client })).body;
    const asked = vi.spyOn(gate, 'assertOpenFor');
    const isOpen = vi.spyOn(gate, 'isOpen');
    try {
      const sent = await app.post(`/api/conversations/${conv.id}/messages`, { content: 'Gate once' }, { token: client });
      expect(sent.status).toBe(201);
      expect(sent.body.reply).toMatchObject({ role: 'specialist' });
      // The request's guard found the org open; the turn it started at once did not ask again.
      expect(asked).toHaveBeenCalledTimes(1);
      expect(isOpen).not.toHaveBeenCalled();

      // A turn nobody's request found open (the sweeper's) reads the gate itself.
      const me = (await app.get('/api/auth/me', { token: client })).body;
      const [message] = await rows<{ id: string }>(
        db.root.execute(sql`insert into conversation_messages (conversation_id, org_id, role, sender_id, content) values (${conv.id}, ${acmeId}, 'client', ${me.id}, 'Swept') returning id`),
      );
      await db.root.execute(
        sql`insert into conversation_turns (message_id, conversation_id, org_id, status, attempts, claimed_until) values (${message!.id}, ${conv.id}, ${acmeId}, 'queued', 0, null)`,
      );
      // Run by the service's own periodic sweep once it has waited STRANDED_AFTER_MS.
      await expect.poll(async () => (await repliesTo(message!.id)).length, { timeout: 20_000 }).toBe(1);
      expect(isOpen).toHaveBeenCalledWith(acmeId);
    } finally {
      asked.mockRestore();
      isOpen.mockRestore();
    }
  });

  it('leaves the turn of a request that died after storing its message to the sweeper once its first claim ran out', async () => {
    const conv = (await app.post('/api/conversations', {}, { token: client })).body;
    const me = (await app.get('/api/auth/me', { token: client })).body;
    // What such a request leaves: the message and its turn, claimed, the claim run out; no reply.
    const [message] = await rows<{ id: string }>(
      db.root.execute(sql`
        insert into conversation_messages (conversation_id, org_id, role, sender_id, content)
        values (${conv.id}, ${acmeId}, 'client', ${me.id}, 'Lost request') returning id`),
    );
    await db.root.execute(
      sql`insert into conversation_turns (message_id, conversation_id, org_id, status, attempts, claimed_until) values (${message!.id}, ${conv.id}, ${acmeId}, 'running', 1, now() - interval '1 second')`,
    );
    const turns = app.running.app.get(TurnsService);
    await Promise.all([turns.runStranded(), turns.runStranded()]);
    // The service's own periodic sweep may have taken it first and still be running it.
    await expect.poll(async () => (await repliesTo(message!.id)).length, { timeout: 20_000 }).toBe(1);
    await expect.poll(async () => (await turnOf(message!.id))?.status, { timeout: 20_000 }).toBe('done');
    await turns.runStranded();
    expect(await repliesTo(message!.id)).toHaveLength(1);
  });

  describe("the ledger rows of a web thread's turn, written by its reply's statement", () => {
    const ledgerOf = async (messageId: string) =>
      rows<{ outcome: string; output_tokens: number }>(db.root.execute(sql`select outcome, output_tokens from llm_runs where message_id = ${messageId} order by created_at`));

    it('commits the model call with the reply: no statement of its own', async () => {
      const ownWrite = vi.spyOn(app.running.app.get(LlmRunsRepository), 'insertEntries');
      try {
        const conv = (await app.post('/api/conversations', {}, { token: client })).body;
        const sent = await app.post(`/api/conversations/${conv.id}/messages`, { content: 'Ledger with the reply' }, { token: client });
        expect(sent.status).toBe(201);
        expect(await ledgerOf(sent.body.id)).toEqual([{ outcome: 'ok', output_tokens: expect.any(Number) }]);
        expect(ownWrite).not.toHaveBeenCalled();
      } finally {
        ownWrite.mockRestore();
      }
    });

    it('records the call when the reply was stored by someone else meanwhile, and when the reply statement fails', async () => {
      const repo = app.running.app.get(ConversationsRepository);
      const conv = (await app.post('/api/conversations', {}, { token: client })).body;
      const otherReply = (scope: { orgId: string }, values: { conversationId: string; specialistId: string; messageId: string }) =>
        db.root.execute(
          sql`insert into conversation_messages (conversation_id, org_id, role, sender_id, content, reply_to_message_id) values (${values.conversationId}, ${scope.orgId}, 'specialist', ${values.specialistId}, 'The other reply', ${values.messageId})`,
        );
      try {
        // Another worker's reply lands first: this statement stores none, yet its model call counts.
        const raced = vi.spyOn(repo, 'deliverReply');
        raced.mockImplementationOnce(async (scope, values) => {
          await otherReply(scope, values);
          raced.mockRestore();
          return repo.deliverReply(scope, values);
        });
        const sent = await app.post(`/api/conversations/${conv.id}/messages`, { content: 'Raced' }, { token: client });
        expect(sent.status).toBe(201);
        expect(sent.body.reply).toMatchObject({ content: 'The other reply' });
        expect(await ledgerOf(sent.body.id)).toHaveLength(1);

        // The statement fails: nothing of it commits, so the call is written on its own; the
        // turn stays claimed and the sweeper answers it later, with a second call of its own.
        const failing = vi.spyOn(repo, 'deliverReply').mockRejectedValueOnce(new Error('connection lost'));
        const lost = await app.post(`/api/conversations/${conv.id}/messages`, { content: 'Lost reply' }, { token: client });
        expect(lost.status).toBe(500);
        failing.mockRestore();
        const [message] = await rows<{ id: string }>(db.root.execute(sql`select id from conversation_messages where conversation_id = ${conv.id} and content = 'Lost reply'`));
        expect(await ledgerOf(message!.id)).toHaveLength(1);
        await expect.poll(async () => (await repliesTo(message!.id)).length, { timeout: 20_000 }).toBe(1);
        expect((await ledgerOf(message!.id)).map((r) => r.outcome)).toEqual(['ok', 'ok']);
      } finally {
        vi.restoreAllMocks();
      }
    });
  });
});
