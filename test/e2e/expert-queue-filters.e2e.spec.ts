import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbService } from '../../src/platform/db/db.service.js';
import { demoCast, type DemoCast } from '../support/tenants.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';

interface Item {
  conversationId: string;
  orgName: string;
  specialist: { id: string; name: string };
  channel: string;
  assigned_expert_id: string | null;
  matches?: Array<{ messageId: string; is_internal: boolean; excerpt: Array<{ text: string; match: boolean }> }>;
}

/**
 * The attention list's filters and search (spec 4.4; issue 18): by org, Specialist, channel and
 * assignee, and the full-text search with its highlighted excerpts, all server-side and never
 * past the caller's grants.
 */
describe('the attention list filters and search', () => {
  let app: TestApp;
  let cast: DemoCast;
  let expert: string;
  let expert2: string;
  let expertId: string;
  let emilieId: string;
  let omarId: string;
  const conv = { kettle: '', invoice: '', mail: '' };

  const queue = async (token: string, query: string) => {
    const res = await app.get(`/api/expert-queue?limit=200&${query}`, { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.items as Item[];
  };
  const ours = (items: Item[]) =>
    items
      .filter((i) => Object.values(conv).includes(i.conversationId))
      .map((i) => i.conversationId)
      .sort();
  const sorted = (...ids: string[]) => [...ids].sort();

  beforeAll(async () => {
    app = await startTestApp();
    cast = await demoCast(app);
    [expert, expert2] = (await Promise.all(['expert@platform.demo.invalid', 'expert2@platform.demo.invalid'].map((e) => app.login(e, PASSWORD)))) as [string, string];
    expertId = (await app.get('/api/auth/me', { token: expert })).body.id;
    const expert2Id = (await app.get('/api/auth/me', { token: expert2 })).body.id;

    // A second Specialist for acme; expert2 covers only it.
    const pool = (await app.get('/api/am/specialists?limit=200', { token: cast.am })).body.items as Array<{ id: string; slug: string }>;
    omarId = pool.find((s) => s.slug === 'omar-haddad')!.id;
    const omar = await app.post(`/api/am/orgs/${cast.acmeId}/specialist`, { specialistId: omarId }, { token: cast.am });
    expect(omar.status, JSON.stringify(omar.body)).toBe(201);
    const grant = await app.post(`/api/am/orgs/${cast.acmeId}/expert-grants`, { expertId: expert2Id, scope: 'specialist', specialistIds: [omarId] }, { token: cast.am });
    expect(grant.status, JSON.stringify(grant.body)).toBe(201);

    const escalated = async (body: object, before?: (id: string) => Promise<unknown>) => {
      const created = await app.post('/api/conversations', body, { token: cast.member });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      await before?.(created.body.id);
      expect((await app.post(`/api/conversations/${created.body.id}/escalate`, { reason: 'A person please' }, { token: cast.member })).status).toBe(201);
      return created.body as { id: string; specialist: { id: string } };
    };
    const kettle = await escalated({ subject: 'Kitchen', message: 'The kettle in the kitchen leaks water everywhere' });
    conv.kettle = kettle.id;
    emilieId = kettle.specialist.id;
    conv.invoice = (await escalated({ assignmentId: omar.body.id, message: 'The quarterly invoice does not match the contract' })).id;
    // A thread that came in by mail (the channels make these; here its row says so before it is escalated: the item copies its channel).
    conv.mail = (await escalated({ message: 'Printer toner ran out' }, (id) => app.running.app.get(DbService).root.execute(sql`update conversations set channel = 'email' where id = ${id}`))).id;
    expect((await app.patch(`/api/conversations/${conv.kettle}/assign`, { expertId }, { token: expert })).status).toBe(200);
    expect((await app.post(`/api/conversations/${conv.invoice}/messages`, { content: 'Internal: the zebrafish clause applies', isInternal: true }, { token: expert })).status).toBe(201);
  });
  afterAll(() => app?.close());

  it('filters by Specialist, channel and assignee, each alone and together, with the status tab', async () => {
    expect(ours(await queue(expert, ''))).toEqual(sorted(conv.kettle, conv.invoice, conv.mail));
    expect(ours(await queue(expert, `specialistId=${omarId}`))).toEqual([conv.invoice]);
    expect(ours(await queue(expert, `specialistId=${emilieId}`))).toEqual(sorted(conv.kettle, conv.mail));
    expect(ours(await queue(expert, 'channel=email'))).toEqual([conv.mail]);
    expect(ours(await queue(expert, 'channel=web'))).toEqual(sorted(conv.kettle, conv.invoice));
    expect(ours(await queue(expert, 'assignee=me'))).toEqual([conv.kettle]);
    expect(ours(await queue(expert, 'assignee=unassigned'))).toEqual(sorted(conv.invoice, conv.mail));
    // An Expert named by id (an account manager looking at one Expert's items).
    expect(ours(await queue(cast.am, `assignee=${expertId}`))).toEqual([conv.kettle]);
    expect(ours(await queue(cast.am, 'assignee=me'))).toEqual([]);
    expect(ours(await queue(expert, `orgId=${cast.acmeId}&specialistId=${emilieId}&channel=web&assignee=me&status=pending`))).toEqual([conv.kettle]);
    expect(ours(await queue(expert, `specialistId=${emilieId}&assignee=me&status=resolved`))).toEqual([]);
    expect(ours(await queue(expert, `conversationId=${conv.mail}`))).toEqual([conv.mail]);
    // The items carry what the filters read, by name.
    const kettle = (await queue(expert, 'assignee=me')).find((i) => i.conversationId === conv.kettle)!;
    expect(kettle).toMatchObject({ orgName: 'Acme Corporation', channel: 'web', assigned_expert_id: expertId, specialist: { id: emilieId, name: 'Émilie Laurent' } });
    expect(kettle.matches).toBeUndefined();
  });

  it('searches the threads with the full-text search and returns the matching words marked', async () => {
    const found = await queue(expert, 'q=leaking%20kettle');
    expect(ours(found)).toEqual([conv.kettle]);
    // The client's message, and the offline reply that quotes it: the text around the matches, the matched words marked.
    const matches = found.find((i) => i.conversationId === conv.kettle)!.matches!;
    expect(matches, JSON.stringify(matches)).toHaveLength(2);
    for (const match of matches) {
      expect(match.is_internal).toBe(false);
      expect(match.excerpt.map((p) => p.text).join('')).toContain('kettle in the kitchen leaks water everywhere');
      // Stemmed like the search: "leaking" finds and marks "leaks".
      expect(match.excerpt.filter((p) => p.match).map((p) => p.text)).toEqual(['kettle', 'leaks']);
    }
    // Staff search their internal notes too; the search composes with the filters.
    const note = (await queue(expert, 'q=zebrafish')).find((i) => i.conversationId === conv.invoice);
    expect(note?.matches?.[0]).toMatchObject({ is_internal: true });
    expect(ours(await queue(expert, `q=zebrafish&specialistId=${emilieId}`))).toEqual([]);
    expect(ours(await queue(expert, 'q=toner&channel=email'))).toEqual([conv.mail]);
    expect(ours(await queue(expert, 'q=nothingmatchesthisword'))).toEqual([]);
  });

  it("keeps to the Expert's grants: a Specialist-scoped grant, and an org without a grant yields nothing", async () => {
    expect(ours(await queue(expert2, ''))).toEqual([conv.invoice]);
    expect(ours(await queue(expert2, `orgId=${cast.acmeId}`))).toEqual([conv.invoice]);
    expect(ours(await queue(expert2, `specialistId=${emilieId}`))).toEqual([]);
    expect(ours(await queue(expert2, 'q=kettle'))).toEqual([]);
    expect(ours(await queue(expert2, 'channel=email'))).toEqual([]);
    expect(ours(await queue(expert2, `conversationId=${conv.kettle}`))).toEqual([]);
    // Another org's items: an org of no grant reads as 404, never its rows.
    await app.post('/api/conversations', { orgId: cast.hooliId, message: 'hello' }, { token: cast.am });
    for (const token of [expert, expert2]) {
      const res = await app.get(`/api/expert-queue?orgId=${cast.hooliId}`, { token });
      expect(res.status).toBe(404);
      expect(res.body.items).toBeUndefined();
    }
  });

  it("lists what the caller's list can be filtered by, by name and within their grants", async () => {
    const mine = (await app.get('/api/expert-queue/filters', { token: expert })).body;
    expect(mine.orgs).toEqual([{ id: cast.acmeId, name: 'Acme Corporation' }]);
    expect(mine.specialists).toEqual(
      expect.arrayContaining([
        { id: emilieId, name: 'Émilie Laurent', orgIds: [cast.acmeId] },
        { id: omarId, name: expect.any(String), orgIds: [cast.acmeId] },
      ]),
    );
    expect(mine.experts).toEqual(expect.arrayContaining([{ id: expertId, name: expect.any(String) }]));
    const narrow = (await app.get('/api/expert-queue/filters', { token: expert2 })).body;
    expect(narrow.orgs).toEqual([{ id: cast.acmeId, name: 'Acme Corporation' }]);
    expect(narrow.specialists.map((s: { id: string }) => s.id)).toEqual([omarId]);
    expect((await app.get('/api/expert-queue/filters', { token: cast.member })).status).toBe(403);
  });

  it('refuses filters it does not know (400 validation_failed)', async () => {
    for (const [query, field] of [
      ['channel=fax', 'query.channel'],
      ['assignee=somebody', 'query.assignee'],
      ['specialistId=emilie', 'query.specialistId'],
      ['q=%20%20', 'query.q'],
      [`q=${'x'.repeat(201)}`, 'query.q'],
    ] as const) {
      const res = await app.get(`/api/expert-queue?${query}`, { token: expert });
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ field })] });
    }
  });
});
