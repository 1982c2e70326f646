import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersService } from '../../src/modules/users/index.js';
import { demoCast, type DemoCast } from '../support/tenants.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { unscopedOrg } from '../../src/platform/tenancy/org-scope.js';

const PASSWORD = 'demo1234';

describe('Client briefs (spec 9.2)', () => {
  let app: TestApp;
  let t: DemoCast & Record<string, string>;

  beforeAll(async () => {
    app = await startTestApp();
    t = { ...(await demoCast(app)), expertWithoutGrant: await app.login('expert2@platform.demo.invalid', PASSWORD) };
    // An org admin (orgRole admin, not owner) of acme.
    const users = app.running.app.get(UsersService);
    const admin = await users.create({ email: 'admin@acme.example.com', name: 'Acme Admin', platformRole: 'org_admin', password: PASSWORD });
    await users.addMembership(unscopedOrg(t.acmeId, 'test setup'), admin.id, 'admin');
    t.admin = await app.login('admin@acme.example.com', PASSWORD);
  });
  afterAll(async () => {
    await app?.close();
  });

  const brief = (title: string, extra: Record<string, unknown> = {}) => ({ title, content: `${title}: we sell anvils to coyotes.`, ...extra });

  it("lets the org's owner write a brief for its own org (no orgId needed) and every member read it", async () => {
    const created = await app.post('/api/client-briefs', brief('Who we are'), { token: t.owner });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ orgId: t.acmeId, title: 'Who we are', content: 'Who we are: we sell anvils to coyotes.' });
    const list = await app.get('/api/client-briefs', { token: t.member });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ items: [expect.objectContaining({ id: created.body.id })], nextCursor: null });
    expect((await app.get(`/api/client-briefs/${created.body.id}`, { token: t.member })).body.title).toBe('Who we are');
  });

  it('lets an org admin, an account manager and a superadmin edit; refuses a plain member (403)', async () => {
    const id = (await app.post('/api/client-briefs', brief('Tone'), { token: t.owner })).body.id;
    const byAdmin = await app.patch(`/api/client-briefs/${id}`, { content: 'Formal, always.' }, { token: t.admin });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toMatchObject({ title: 'Tone', content: 'Formal, always.' });
    expect((await app.patch(`/api/client-briefs/${id}`, { title: 'Voice' }, { token: t.am })).body.title).toBe('Voice');
    expect((await app.patch(`/api/client-briefs/${id}`, { title: 'Voice and tone' }, { token: t.superadmin })).status).toBe(200);
    expect((await app.post('/api/client-briefs', brief('Nope'), { token: t.member })).status).toBe(403);
    expect((await app.patch(`/api/client-briefs/${id}`, { title: 'Mine' }, { token: t.member })).status).toBe(403);
    expect((await app.request('DELETE', `/api/client-briefs/${id}`, { token: t.member })).status).toBe(403);
    expect((await app.get(`/api/client-briefs/${id}`, { token: t.member })).body.title).toBe('Voice and tone');
  });

  it('has internal roles name the org: 400 without it, 404 for an unknown org', async () => {
    const created = await app.post('/api/client-briefs', brief('Pricing', { orgId: t.hooliId }), { token: t.am });
    expect(created.status).toBe(201);
    expect(created.body.orgId).toBe(t.hooliId);
    const missing = await app.post('/api/client-briefs', brief('Pricing'), { token: t.am });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('validation_failed');
    expect((await app.post('/api/client-briefs', brief('Pricing', { orgId: '00000000-0000-4000-8000-000000000001' }), { token: t.am })).status).toBe(404);
    expect((await app.get('/api/client-briefs', { token: t.am })).status).toBe(400);
    expect((await app.get(`/api/client-briefs?orgId=${t.hooliId}`, { token: t.am })).body.items.map((b: { title: string }) => b.title)).toEqual(['Pricing']);
  });

  it("answers 404 for another org's briefs, whatever the method, and never takes a client's org from the body", async () => {
    const acmeBrief = (await app.post('/api/client-briefs', brief('Secret plans'), { token: t.owner })).body.id;
    expect((await app.get(`/api/client-briefs/${acmeBrief}`, { token: t.hooliOwner })).status).toBe(404);
    expect((await app.patch(`/api/client-briefs/${acmeBrief}`, { title: 'Ours now' }, { token: t.hooliOwner })).status).toBe(404);
    expect((await app.request('DELETE', `/api/client-briefs/${acmeBrief}`, { token: t.hooliOwner })).status).toBe(404);
    expect((await app.get(`/api/client-briefs?orgId=${t.acmeId}`, { token: t.hooliOwner })).status).toBe(404);
    expect((await app.post('/api/client-briefs', brief('Planted', { orgId: t.acmeId }), { token: t.hooliOwner })).status).toBe(404);
    expect((await app.get(`/api/client-briefs?orgId=${t.hooliId}`, { token: t.owner })).status).toBe(404);
    const own = await app.get('/api/client-briefs', { token: t.hooliOwner });
    expect(own.body.items.map((b: { orgId: string }) => b.orgId)).toEqual([t.hooliId]);
    expect((await app.get('/api/client-briefs/00000000-0000-4000-8000-000000000002', { token: t.owner })).status).toBe(404);
    expect((await app.get('/api/client-briefs/not-a-uuid', { token: t.owner })).status).toBe(404);
  });

  it('lets an Expert read only the orgs its grants cover, and never edit; AI operators read', async () => {
    const id = (await app.post('/api/client-briefs', brief('Escalations'), { token: t.owner })).body.id;
    expect((await app.get(`/api/client-briefs/${id}`, { token: t.expertWithoutGrant })).status).toBe(404);
    expect((await app.get(`/api/client-briefs?orgId=${t.acmeId}`, { token: t.expertWithoutGrant })).status).toBe(404);
    const covering = await app.demoLogin('expert', 'acme'); // demo login grants it acme, org-wide
    expect((await app.get(`/api/client-briefs/${id}`, { token: covering })).status).toBe(200);
    expect((await app.get(`/api/client-briefs?orgId=${t.acmeId}`, { token: covering })).status).toBe(200);
    expect((await app.get(`/api/client-briefs?orgId=${t.hooliId}`, { token: covering })).status).toBe(404);
    expect((await app.patch(`/api/client-briefs/${id}`, { title: 'Expert edit' }, { token: covering })).status).toBe(403);
    expect((await app.post('/api/client-briefs', brief('Expert brief', { orgId: t.acmeId }), { token: covering })).status).toBe(403);
    expect((await app.get(`/api/client-briefs/${id}`, { token: t.aiOperator })).status).toBe(200);
    expect((await app.patch(`/api/client-briefs/${id}`, { title: 'Ops edit' }, { token: t.aiOperator })).status).toBe(403);
  });

  it('pages newest first with limit and cursor', async () => {
    for (const title of ['Page A', 'Page B', 'Page C']) await app.post('/api/client-briefs', brief(title, { orgId: t.hooliId }), { token: t.am });
    const first = await app.get(`/api/client-briefs?orgId=${t.hooliId}&limit=2`, { token: t.am });
    expect(first.body.items.map((b: { title: string }) => b.title)).toEqual(['Page C', 'Page B']);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await app.get(`/api/client-briefs?orgId=${t.hooliId}&limit=2&cursor=${first.body.nextCursor}`, { token: t.am });
    expect(second.body.items.map((b: { title: string }) => b.title)).toEqual(['Page A', 'Pricing']);
    expect(second.body.nextCursor).toBeNull();
    expect((await app.get(`/api/client-briefs?orgId=${t.hooliId}&cursor=garbage`, { token: t.am })).status).toBe(400);
  });

  it('validates bodies', async () => {
    const empty = await app.post('/api/client-briefs', { title: '  ', content: 'x' }, { token: t.owner });
    expect(empty.status).toBe(400);
    expect(empty.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'title' })]));
    const id = (await app.post('/api/client-briefs', brief('Valid'), { token: t.owner })).body.id;
    expect((await app.patch(`/api/client-briefs/${id}`, {}, { token: t.owner })).status).toBe(400);
    expect((await app.post('/api/client-briefs', { title: 'Long', content: 'x'.repeat(20_001) }, { token: t.owner })).status).toBe(400);
  });

  it('deletes, audited (created, updated, deleted)', async () => {
    const id = (await app.post('/api/client-briefs', brief('Temporary'), { token: t.owner })).body.id;
    await app.patch(`/api/client-briefs/${id}`, { content: 'Changed' }, { token: t.owner });
    expect((await app.request('DELETE', `/api/client-briefs/${id}`, { token: t.owner })).status).toBe(204);
    expect((await app.get(`/api/client-briefs/${id}`, { token: t.owner })).status).toBe(404);
    const audit = await app.get(`/api/ops/audit?resourceId=${id}`, { token: t.superadmin });
    expect(audit.body.items.map((r: { action: string }) => r.action).sort()).toEqual(['client_brief.created', 'client_brief.deleted', 'client_brief.updated']);
    expect(audit.body.items.every((r: { orgId: string }) => r.orgId === t.acmeId)).toBe(true);
  });

  describe('the old /environment-profiles paths (spec 9.2)', () => {
    const raw = (method: string, path: string, init: RequestInit = {}) => fetch(app.url + path, { method, redirect: 'manual', ...init });

    it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'])('%s answers 308 to the same path and query under /client-briefs, without a token', async (method) => {
      const res = await raw(
        method,
        '/api/environment-profiles/3f0c/sub?orgId=abc&x=1',
        method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? {} : { headers: { 'content-type': 'application/json' }, body: '{"title":"t"}' },
      );
      expect(res.status).toBe(308);
      expect(res.headers.get('location')).toBe('/api/client-briefs/3f0c/sub?orgId=abc&x=1');
    });

    it('redirects the collection path with its query, and a POST follows to the same method and body', async () => {
      const get = await raw('GET', '/api/environment-profiles?orgId=abc&limit=5');
      expect(get.status).toBe(308);
      expect(get.headers.get('location')).toBe('/api/client-briefs?orgId=abc&limit=5');
      const bare = await raw('GET', '/api/environment-profiles');
      expect(bare.headers.get('location')).toBe('/api/client-briefs');
      const post = await raw('POST', '/api/environment-profiles?source=legacy', {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.owner}` },
        body: JSON.stringify(brief('Via the old path')),
      });
      expect(post.status).toBe(308);
      expect(post.headers.get('location')).toBe('/api/client-briefs?source=legacy');
      // A client that follows the redirect re-sends the same method and body to the new path.
      const followed = await fetch(app.url + '/api/environment-profiles', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.owner}` },
        body: JSON.stringify(brief('Followed')),
      });
      expect(followed.status).toBe(201);
      expect(((await followed.json()) as { title: string }).title).toBe('Followed');
    });
  });

  it('lists every client-brief route and the redirects in the OpenAPI document', async () => {
    const doc = (await app.get('/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths['/api/client-briefs']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/client-briefs/{id}']!).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(doc.paths['/api/environment-profiles']!)).toEqual(expect.arrayContaining(['get', 'post', 'put', 'patch', 'delete']));
    expect(doc.paths['/api/environment-profiles/*']).toBeDefined();
  });
});
