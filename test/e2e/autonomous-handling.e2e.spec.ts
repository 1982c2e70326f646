import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversations } from '../../src/modules/conversations/conversations.tables.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { activeGlobex, demoCast, type DemoCast } from '../support/tenants.js';

const DAY_MS = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
const rate = (conversations: number, autoResponded: number, autonomous: number) => ({ conversations, autoResponded, autonomous, rate: conversations === 0 ? null : autonomous / conversations });

/**
 * The autonomous handling rate (spec 2.5 `auto_responded`, docs/conversations.md): conversations
 * created in the range that the Specialist answered with no Expert reply, no correction and no
 * attention-list item, over all conversations created in the range.
 */
describe('the autonomous handling rate on /ops/analytics and /ops/billing?org=', () => {
  let app: TestApp;
  let c: DemoCast;
  let acmeExpert: string;
  let globexExpert: string;
  let globexClient: string;
  let globexId: string;
  let emilie: string;
  let omar: string;
  let globexOsa: { emilie: string; omar: string };

  /** A client thread; with a message the offline Specialist answers it at once. */
  const thread = async (token: string, message?: string, assignmentId?: string) => {
    const res = await app.post('/api/conversations', { message, assignmentId }, { token });
    expect(res.status).toBe(201);
    return res.body as { id: string; messages: Array<{ id: string; role: string }> };
  };
  const workload = (query = '') => app.get(`/api/ops/analytics/expert-workload${query}`, { token: c.superadmin });
  const orgView = (orgId: string, query = '') => app.get(`/api/ops/billing/orgs/${orgId}${query}`, { token: c.superadmin });

  beforeAll(async () => {
    app = await startTestApp();
    c = await demoCast(app);
    const pool = (await app.get('/api/am/specialists', { token: c.am })).body.items as Array<{ id: string; slug: string }>;
    emilie = (await app.get(`/api/am/orgs/${c.acmeId}/specialist-assignments`, { token: c.am })).body.items[0].specialistId;
    omar = pool.find((s) => s.slug === 'omar-haddad')!.id;
    const globex = await activeGlobex(app, c.am, [
      { specialistId: emilie, monthlyRate: 1200 },
      { specialistId: omar, monthlyRate: 900 },
    ]);
    globexId = globex.id;
    globexOsa = { emilie: globex.osas[0]!.id, omar: globex.osas[1]!.id };
    globexClient = await app.demoLogin('client', 'globex');
    acmeExpert = await app.demoLogin('expert', 'acme');
    globexExpert = await app.demoLogin('expert', 'globex');

    // acme, all with Émilie: 6 threads, 5 answered by the Specialist, 2 of them with no Expert.
    await thread(c.member, 'What are your opening hours?'); // answered alone
    const replied = await thread(c.member, 'Can someone call me back?');
    expect((await app.post(`/api/conversations/${replied.id}/messages`, { content: 'I will call you at 3 pm.' }, { token: acmeExpert })).status).toBe(201);
    const noted = await thread(c.member, 'Thanks, that answers it.');
    // An internal note never reaches the client: the thread stays handled by the Specialist alone.
    expect((await app.post(`/api/conversations/${noted.id}/messages`, { content: 'Looks fine.', isInternal: true }, { token: acmeExpert })).status).toBe(201);
    const escalated = await thread(c.member, 'I want a human.');
    expect((await app.post(`/api/conversations/${escalated.id}/escalate`, { reason: 'please' }, { token: c.member })).status).toBeLessThan(300);
    await thread(c.member); // no message yet: nobody answered
    const corrected = await thread(c.member, 'What is the price?');
    const reply = corrected.messages.find((m) => m.role === 'specialist')!;
    expect(
      (await app.request('PATCH', `/api/conversations/${corrected.id}/messages/${reply.id}`, { token: acmeExpert, body: { content: 'The price is 40 USD.', reason: 'wrong price' } })).status,
    ).toBe(200);

    // globex: Émilie once (alone), Omar twice (one with an Expert reply), and Omar once 10 days ago (alone).
    await thread(globexClient, 'Hello Émilie', globexOsa.emilie);
    await thread(globexClient, 'Hello Omar', globexOsa.omar);
    const globexReplied = await thread(globexClient, 'Omar, I need more', globexOsa.omar);
    expect((await app.post(`/api/conversations/${globexReplied.id}/messages`, { content: 'Here is more.' }, { token: globexExpert })).status).toBe(201);
    const old = await thread(globexClient, 'An old question', globexOsa.omar);
    await app.running.dbService.db
      .update(conversations)
      .set({ createdAt: new Date(`${daysAgo(10)}T12:00:00Z`) })
      .where(eq(conversations.id, old.id));
  });
  afterAll(async () => {
    await app?.close();
  });

  it('gives the platform-wide rate, per org and per Specialist (one Specialist on two orgs folded) on the analytics endpoint', async () => {
    const res = await workload(`?from=${daysAgo(6)}&to=${today()}`);
    expect(res.status).toBe(200);
    expect(res.body.autonomousHandling).toEqual({
      total: rate(9, 8, 4),
      byOrg: [
        { orgId: c.acmeId, name: expect.any(String), ...rate(6, 5, 2) },
        { orgId: globexId, name: 'Globex', ...rate(3, 3, 2) },
      ],
      bySpecialist: [
        { specialistId: emilie, name: 'Émilie Laurent', ...rate(7, 6, 3) },
        { specialistId: omar, name: 'Omar Haddad', ...rate(2, 2, 1) },
      ],
    });
    expect(res.body.autonomousHandling.total.rate).toBeCloseTo(0.4444, 4);
  });

  it('counts the conversations created in the range only (UTC days, both ends included; 30 days by default)', async () => {
    const wide = (await workload(`?from=${daysAgo(12)}&to=${today()}`)).body.autonomousHandling;
    expect(wide.total).toEqual(rate(10, 9, 5));
    expect(wide.byOrg.find((o: { orgId: string }) => o.orgId === globexId)).toMatchObject(rate(4, 4, 3));
    expect(wide.bySpecialist.find((s: { specialistId: string }) => s.specialistId === omar)).toMatchObject(rate(3, 3, 2));

    const past = (await workload(`?from=${daysAgo(10)}&to=${daysAgo(10)}`)).body.autonomousHandling;
    expect(past).toEqual({ total: rate(1, 1, 1), byOrg: [{ orgId: globexId, name: 'Globex', ...rate(1, 1, 1) }], bySpecialist: [{ specialistId: omar, name: 'Omar Haddad', ...rate(1, 1, 1) }] });
    expect((await workload(`?from=${daysAgo(9)}&to=${daysAgo(1)}`)).body.autonomousHandling).toEqual({ total: rate(0, 0, 0), byOrg: [], bySpecialist: [] });
    expect((await workload()).body.autonomousHandling.total).toEqual(rate(10, 9, 5));
    expect((await orgView(globexId, `?from=${daysAgo(10)}&to=${daysAgo(10)}`)).body.autonomousHandling.total).toEqual(rate(1, 1, 1));
  });

  it("gives one org's rate and its rate per Specialist on the ops org view; another org's threads never count", async () => {
    const acme = await orgView(c.acmeId, `?from=${daysAgo(6)}&to=${today()}`);
    expect(acme.status).toBe(200);
    // Émilie also answered on globex: that thread is not acme's.
    expect(acme.body.autonomousHandling).toEqual({ total: rate(6, 5, 2), bySpecialist: [{ specialistId: emilie, name: 'Émilie Laurent', ...rate(6, 5, 2) }] });
    const globex = (await orgView(globexId, `?from=${daysAgo(6)}&to=${today()}`)).body.autonomousHandling;
    expect(globex).toEqual({
      total: rate(3, 3, 2),
      bySpecialist: [
        { specialistId: omar, name: 'Omar Haddad', ...rate(2, 2, 1) },
        { specialistId: emilie, name: 'Émilie Laurent', ...rate(1, 1, 1) },
      ],
    });
    // An org without conversations: no rate ("—" on the page), not 0 %.
    expect((await orgView(c.hooliId)).body.autonomousHandling).toEqual({ total: rate(0, 0, 0), bySpecialist: [] });
  });

  it('refuses a range that ends before it starts, on both endpoints', async () => {
    const bad = await orgView(c.acmeId, `?from=${today()}&to=${daysAgo(3)}`);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
    expect((await workload(`?from=${today()}&to=${daysAgo(3)}`)).status).toBe(400);
    expect((await workload('?from=2026-13-01')).status).toBe(400);
  });

  it('is for superadmins only: 403 for every other role, 401 without a token', async () => {
    for (const path of ['/api/ops/analytics/expert-workload', `/api/ops/billing/orgs/${c.acmeId}`]) {
      for (const token of [c.am, acmeExpert, c.aiOperator, c.owner, c.member, globexClient]) expect((await app.get(path, { token })).status, path).toBe(403);
      expect((await app.get(path)).status).toBe(401);
    }
  });

  it('shows the rate in the OpenAPI document of both endpoints', async () => {
    const doc = (await app.get('/api/openapi.json')).body as { paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }> };
    for (const path of ['/api/ops/analytics/expert-workload', '/api/ops/billing/orgs/{orgId}']) {
      const schema = JSON.stringify(doc.paths[path]!.get.responses['200']!.content['application/json']!.schema);
      expect(schema, path).toContain('autonomousHandling');
      expect(schema, path).toContain('autoResponded');
    }
  });
});
