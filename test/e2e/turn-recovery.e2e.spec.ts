import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationsRepository } from '../../src/modules/conversations/conversations.repository.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a reply the database could not store (spec 6.1.5: not an agent failure)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { TURN_LEASE_MS: '1000', STRANDED_AFTER_MS: '1000' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('leaves the turn to the sweeper instead of failing it: no attention-list item, then the reply once', async () => {
    const client = await app.login('client@acme.demo.invalid', PASSWORD);
    const expert = await app.login('expert@platform.demo.invalid', PASSWORD);
    const repo = app.running.app.get(ConversationsRepository);
    // A web thread's reply is stored by one statement (reply, turn done, thread answered).
    const deliver = repo.deliverReply.bind(repo);
    let refused = 0;
    // The model answers, but the database is gone for the first three attempts to store the reply.
    repo.deliverReply = async (scope, values) => {
      if (refused < 3) {
        refused++;
        throw new Error('Connection terminated unexpectedly');
      }
      return deliver(scope, values);
    };
    try {
      const conversation = (await app.post('/api/conversations', {}, { token: client })).body.id as string;
      const sent = await app.post(`/api/conversations/${conversation}/messages`, { content: 'Are you there?' }, { headers: { 'idempotency-key': 'recovery-1' }, token: client });
      expect(sent.status).toBe(500);

      const deadline = Date.now() + 20_000;
      let thread = (await app.get(`/api/conversations/${conversation}`, { token: client })).body;
      while (thread.messages.length < 2 && Date.now() < deadline) {
        await sleep(200);
        thread = (await app.get(`/api/conversations/${conversation}`, { token: client })).body;
      }
      expect(thread.messages.map((m: { role: string }) => m.role)).toEqual(['client', 'specialist']);
      expect(refused).toBe(3);
      await sleep(1500);
      expect((await app.get(`/api/conversations/${conversation}`, { token: client })).body.messages).toHaveLength(2);
      const items = (await app.get('/api/expert-queue', { token: expert })).body.items as Array<{ conversationId: string }>;
      expect(items.filter((i) => i.conversationId === conversation)).toEqual([]);
      // The client's retry with the same key finds the message and its reply.
      const again = await app.post(`/api/conversations/${conversation}/messages`, { content: 'Are you there?' }, { headers: { 'idempotency-key': 'recovery-1' }, token: client });
      expect(again.status).toBe(201);
      expect(again.body.reply).toMatchObject({ id: thread.messages[1].id });
    } finally {
      repo.deliverReply = deliver;
    }
  });
});
