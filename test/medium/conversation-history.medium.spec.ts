import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationsRepository } from '../../src/modules/conversations/conversations.repository.js';
import { jobScope } from '../../src/platform/tenancy/org-scope.js';
import { factoriesOf } from '../support/factories.js';
import { rows } from '../support/rows.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe("a turn's history (the messages the Specialist reads)", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ seeded: false });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('holds the client and Specialist messages before the turn, oldest first, to the microsecond', async () => {
    const f = factoriesOf(app);
    const org = await f.newOrg();
    await f.newSpecialistAssignment(org);
    const conversation = await f.newConversation(org);
    const db = app.running.dbService;
    // Stored times after every message the thread has already; three of them share one millisecond.
    const [{ base }] = (await rows<{ base: string }>(db, sql`select date_trunc('second', now() + interval '1 day')::text as base`)) as [{ base: string }];
    const add = async (role: string, offset: string, isInternal = false) => {
      const [row] = await rows<{ id: string }>(
        db,
        sql`insert into conversation_messages (conversation_id, org_id, role, content, is_internal, created_at)
            values (${conversation.id}, ${org.id}, ${role}, ${`${role} at ${offset}`}, ${isInternal}, ${base}::timestamptz + ${offset}::interval) returning id`,
      );
      return row!.id;
    };
    await add('client', '0.100000 s');
    await add('specialist', '0.200000 s');
    await add('expert', '0.250000 s', true);
    await add('system', '0.260000 s');
    await add('client', '0.300400 s');
    const turn = await add('client', '0.300900 s');
    await add('specialist', '0.300950 s');
    await add('client', '0.400000 s');

    const repo = app.running.app.get(ConversationsRepository);
    const scope = jobScope({ orgId: org.id });
    const earlier = [
      { role: 'client', content: 'client at 0.100000 s' },
      { role: 'specialist', content: 'specialist at 0.200000 s' },
      { role: 'client', content: 'client at 0.300400 s' },
    ];
    const history = await repo.historyBefore(scope, conversation.id, turn, 20);
    // The thread's earlier messages (its first message and reply) come before these three; the
    // internal note, the activity entry and what came after the turn are not in it.
    expect(history.slice(-3)).toEqual(earlier);
    expect(history.some((m) => m.role === 'system' || m.role === 'expert')).toBe(false);
    expect(await repo.historyBefore(scope, conversation.id, turn, 2)).toEqual(earlier.slice(1));
    // Another org's scope reads nothing of it.
    const other = await f.newOrg();
    expect(await repo.historyBefore(jobScope({ orgId: other.id }), conversation.id, turn, 20)).toEqual([]);
  });

  it('is read by the statement that stores a client message to a pending thread, as a later read finds it', async () => {
    const f = factoriesOf(app);
    const org = await f.newOrg();
    await f.newSpecialistAssignment(org);
    const conversation = await f.newConversation(org);
    const repo = app.running.app.get(ConversationsRepository);
    const scope = jobScope({ orgId: org.id });
    await repo.update(scope, conversation.id, { status: 'pending' });
    const turn = { claimLeaseMs: 60_000, historyLimit: 3 };
    const send = async (content: string) => {
      const stored = await repo.storeClientMessageWhilePending(scope, { conversationId: conversation.id, senderId: null, content, idempotencyKey: null }, turn);
      expect(stored).toBeDefined();
      return stored!;
    };
    const sent = [];
    for (const content of ['one', 'two', 'three', 'four', 'five']) sent.push(await send(content));
    // Each message's history is the thread before it, the newest 3 (the thread's opening message and reply, if any, come first).
    expect(sent[4]!.history).toEqual([
      { role: 'client', content: 'two' },
      { role: 'client', content: 'three' },
      { role: 'client', content: 'four' },
    ]);
    for (const stored of sent) expect(stored.history).toEqual(await repo.historyBefore(scope, conversation.id, stored.message.id, turn.historyLimit));
  });
});
