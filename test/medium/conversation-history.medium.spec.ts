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

  it('holds the client and Specialist messages up to the turn, newest first, to the microsecond', async () => {
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
    const a = await add('client', '0.100000 s');
    const b = await add('specialist', '0.200000 s');
    await add('expert', '0.250000 s', true);
    await add('system', '0.260000 s');
    const c = await add('client', '0.300400 s');
    const turn = await add('client', '0.300900 s');
    await add('specialist', '0.300950 s');
    await add('client', '0.400000 s');

    const repo = app.running.app.get(ConversationsRepository);
    const scope = jobScope({ orgId: org.id });
    const upTo = (await repo.findMessage(scope, conversation.id, turn))!;
    const history = await repo.history(scope, conversation.id, upTo, 20);
    // The earlier messages of the thread (its first message and reply) follow these four.
    expect(history.slice(0, 4).map((m) => m.id)).toEqual([turn, c, b, a]);
    expect(history.every((m) => !m.isInternal && m.role !== 'system')).toBe(true);
    expect((await repo.history(scope, conversation.id, upTo, 2)).map((m) => m.id)).toEqual([turn, c]);
    // Another org's scope reads nothing of it.
    const other = await f.newOrg();
    expect(await repo.history(jobScope({ orgId: other.id }), conversation.id, upTo, 20)).toEqual([]);
  });
});
