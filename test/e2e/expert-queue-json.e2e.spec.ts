import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueItemDto } from '../../src/contracts/conversations.js';
import { toQueueItemDto } from '../../src/modules/conversations/conversations.dto.js';
import { conversations, queueItems } from '../../src/modules/conversations/conversations.tables.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { encodeCursor } from '../../src/platform/http/pagination.js';
import { demoCast, type DemoCast } from '../support/tenants.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';

/**
 * The attention list's page is written by its statement as the JSON of its items' DTOs and sent
 * as it is: here it is held equal, byte for byte once parsed (keys, their order, values), to what
 * `toQueueItemDto` makes of the same rows read through the driver, on both database paths.
 */
describe('the attention list as the JSON its statement writes', () => {
  let app: TestApp;
  let cast: DemoCast;
  let expert: string;
  let expertId: string;
  const ids = { titled: '', untitled: '', moved: '', orphan: '' };

  const root = () => app.running.app.get(DbService).root;
  const rowsOf = async <T>(query: ReturnType<typeof sql>) => (await root().execute(query)) as unknown as { rows: T[] } | T[];
  const listOf = async <T>(query: ReturnType<typeof sql>): Promise<T[]> => {
    const result = await rowsOf<T>(query);
    return Array.isArray(result) ? result : result.rows;
  };

  /** The list as `toQueueItemDto` makes it of the rows read through the driver, newest first, for `covers` (every item when absent). */
  const expected = async (covers?: (item: { orgId: string; specialistId: string }) => boolean): Promise<QueueItemDto[]> => {
    const items = await root().select().from(queueItems);
    const threads = await root().select().from(conversations);
    const orgNames = new Map((await listOf<{ id: string; legal_name: string }>(sql`select id, legal_name from orgs`)).map((o) => [o.id, o.legal_name]));
    const specialistNames = new Map((await listOf<{ id: string; name: string }>(sql`select id, name from specialists`)).map((s) => [s.id, s.name]));
    // The order of the timestamps as stored (microseconds), which a Date cuts.
    const order = (await listOf<{ id: string }>(sql`select id from queue_items order by updated_at desc, id desc`)).map((r) => r.id);
    return items
      .filter((item) => !covers || covers(item))
      .sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id))
      .map((item) => {
        // The item carries its thread's subject and channel, copied when it was raised.
        const thread = threads.find((c) => c.id === item.conversationId && c.orgId === item.orgId);
        expect({ subject: item.subject, channel: item.channel }).toEqual({ subject: thread?.subject ?? null, channel: thread?.channel ?? 'web' });
        const name = specialistNames.get(item.specialistId);
        return toQueueItemDto(item, orgNames.get(item.orgId) ?? '', name === undefined ? undefined : { name });
      });
  };

  /** Every page of the list, `limit` items a page, following each page's cursor; checks each cursor is the one `encodeCursor` makes of the page's last item. */
  const walk = async (token: string, limit: number, query = '') => {
    const all: QueueItemDto[] = [];
    let cursor: string | null = null;
    do {
      const res = await app.get(`/api/expert-queue?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`, { token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(Object.keys(res.body)).toEqual(['items', 'nextCursor']);
      const items = res.body.items as QueueItemDto[];
      all.push(...items);
      cursor = res.body.nextCursor as string | null;
      if (cursor) {
        expect(items).toHaveLength(limit);
        const last = items[items.length - 1]!;
        expect(cursor).toBe(encodeCursor({ at: new Date(last.updatedAt), id: last.id }));
      }
    } while (cursor);
    return all;
  };

  beforeAll(async () => {
    app = await startTestApp();
    cast = await demoCast(app);
    expert = await app.login('expert@platform.demo.invalid', PASSWORD);
    expertId = (await app.get('/api/auth/me', { token: expert })).body.id;
    const escalated = async (body: object) => {
      const created = await app.post('/api/conversations', body, { token: cast.member });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect((await app.post(`/api/conversations/${created.body.id}/escalate`, { reason: 'A person please' }, { token: cast.member })).status).toBe(201);
      const [item] = await listOf<{ id: string }>(sql`select id from queue_items where conversation_id = ${created.body.id}`);
      return item!.id;
    };
    ids.titled = await escalated({ subject: 'The "kettle" \\ leaks\nagain', message: 'The kettle in the kitchen leaks water everywhere' });
    ids.untitled = await escalated({ message: 'Printer toner ran out' });
    ids.moved = await escalated({ message: 'A thread whose item is in another org' });
    ids.orphan = await escalated({ message: 'An item whose Specialist has no row' });
    // Timestamps with microseconds, newest of the list: two in the same millisecond, one a microsecond short of the next.
    await root().execute(
      sql`update queue_items set updated_at = '2031-05-06 07:08:09.123999+00', created_at = '2031-01-02 03:04:05.000001+00', sla_deadline = '2031-05-06 11:08:09.999999+00', deferred_until = '2031-06-01 00:00:00.5+00' where id = ${ids.titled}`,
    );
    await root().execute(sql`update queue_items set updated_at = '2031-05-06 07:08:09.123001+00', sla_deadline = null where id = ${ids.untitled}`);
    await root().execute(sql`update queue_items set updated_at = '2031-05-06 07:08:09.122+00', org_id = ${cast.hooliId} where id = ${ids.moved}`);
    await root().execute(sql`update queue_items set updated_at = '2031-05-06 07:08:08.999999+00', specialist_id = ${randomUUID()} where id = ${ids.orphan}`);
  });
  afterAll(() => app?.close());

  it("answers the first page with the DTOs of its rows, keys in their order, JSON's media type", async () => {
    const res = await app.get('/api/expert-queue', { token: cast.superadmin });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const want = await expected();
    expect(JSON.stringify(res.body)).toBe(JSON.stringify({ items: want.slice(0, 50), nextCursor: want.length > 50 ? encodeCursor({ at: new Date(want[49]!.updatedAt), id: want[49]!.id }) : null }));
  });

  it('writes timestamps as toISOString does: microseconds cut to milliseconds, not rounded', async () => {
    const items = (await app.get('/api/expert-queue?limit=5', { token: cast.superadmin })).body.items as QueueItemDto[];
    const titled = items.find((i) => i.id === ids.titled)!;
    expect(titled).toMatchObject({
      updatedAt: '2031-05-06T07:08:09.123Z',
      createdAt: '2031-01-02T03:04:05.000Z',
      sla_deadline: '2031-05-06T11:08:09.999Z',
      deferred_until: '2031-06-01T00:00:00.500Z',
      subject: 'The "kettle" \\ leaks\nagain',
    });
    expect(items.find((i) => i.id === ids.untitled)).toMatchObject({ updatedAt: '2031-05-06T07:08:09.123Z', sla_deadline: null, deferred_until: null, subject: null, channel: 'web' });
  });

  it('gives an item without a thread in its org a null subject and the web channel, and one without a Specialist row an empty name', async () => {
    const items = await walk(cast.superadmin, 50);
    expect(items.find((i) => i.id === ids.moved)).toMatchObject({ orgId: cast.hooliId, orgName: 'Hooli', subject: null, channel: 'web' });
    expect(items.find((i) => i.id === ids.orphan)?.specialist.name).toBe('');
  });

  it('walks every page by its cursor, across items of one millisecond, to the same list', async () => {
    const want = await expected();
    expect(JSON.stringify(await walk(cast.superadmin, 1))).toBe(JSON.stringify(want));
    expect(JSON.stringify(await walk(cast.superadmin, 3))).toBe(JSON.stringify(want));
  });

  it("keeps an Expert to the items of the Expert's grants, filtered or not", async () => {
    const grants = await listOf<{ org_id: string; scope: string; specialist_ids: string[] | null }>(sql`select org_id, scope, specialist_ids from expert_grants where expert_id = ${expertId}`);
    const covers = (item: { orgId: string; specialistId: string }) => grants.some((g) => g.org_id === item.orgId && (g.scope === 'org' || (g.specialist_ids ?? []).includes(item.specialistId)));
    const want = await expected(covers);
    expect(want.length).toBeGreaterThan(0);
    expect(want.some((i) => i.id === ids.moved)).toBe(false);
    expect(JSON.stringify(await walk(expert, 50))).toBe(JSON.stringify(want));
    expect(JSON.stringify(await walk(expert, 2))).toBe(JSON.stringify(want));
    expect(JSON.stringify(await walk(expert, 2, '&status=pending'))).toBe(JSON.stringify(want.filter((i) => i.status === 'pending')));
    expect(JSON.stringify(await walk(cast.superadmin, 2, `&orgId=${cast.acmeId}`))).toBe(JSON.stringify((await expected()).filter((i) => i.orgId === cast.acmeId)));
    expect((await app.get('/api/expert-queue', { token: cast.member })).status).toBe(403);
  });

  it('answers a search with the same items, each with its matches', async () => {
    const res = await app.get('/api/expert-queue?q=kettle', { token: cast.superadmin });
    expect(res.status).toBe(200);
    const items = res.body.items as QueueItemDto[];
    expect(items.map((i) => i.id)).toEqual([ids.titled]);
    const { matches, ...item } = items[0]!;
    expect(matches?.length).toBeGreaterThan(0);
    expect(JSON.stringify(item)).toBe(JSON.stringify((await expected()).find((i) => i.id === ids.titled)));
  });
});
