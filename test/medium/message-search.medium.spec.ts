import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationMessages, messageWords } from '../../src/modules/conversations/conversations.tables.js';
import { factoriesOf } from '../support/factories.js';
import { rows } from '../support/rows.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe("a message's words (full-text search)", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ seeded: false });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('are not stored with the message, and a search written with them is answered from their index', async () => {
    const f = factoriesOf(app);
    const org = await f.newOrg();
    await f.newSpecialistAssignment(org);
    const conversation = await f.newConversation(org);
    const db = app.running.dbService;
    for (const content of ['Where is my invoice for March?', 'The invoices were paid', 'Unrelated words']) {
      await rows(db, sql`insert into conversation_messages (conversation_id, org_id, role, content) values (${conversation.id}, ${org.id}, 'client', ${content})`);
    }

    const columns = await rows<{ column_name: string }>(db, sql`select column_name from information_schema.columns where table_name = 'conversation_messages'`);
    expect(columns.map((c) => c.column_name)).not.toContain('search');

    const words = sql`${messageWords(conversationMessages.content)} @@ websearch_to_tsquery('english', 'invoice')`;
    const matching = sql`select ${conversationMessages.content} from ${conversationMessages} where ${conversationMessages.orgId} = ${org.id} and ${words}`;
    // Stemmed as before: "invoices" matches "invoice".
    expect((await rows<{ content: string }>(db, matching)).map((r) => r.content).sort()).toEqual(['The invoices were paid', 'Where is my invoice for March?']);

    // With sequential scans priced out, the plan reads the GIN index: the search's expression is the index's.
    const plan = await db.root.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      return rows<{ 'QUERY PLAN': string }>(tx, sql`explain select ${conversationMessages.id} from ${conversationMessages} where ${words}`);
    });
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('conversation_messages_search_idx');
  });
});
