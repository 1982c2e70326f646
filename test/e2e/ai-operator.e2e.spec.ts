import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCast, type DemoCast } from '../support/tenants.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** API-MAP "Sessions, sockets and hardening": ai_operator reads conversations but writes none. */
describe('ai_operator and conversations', () => {
  let app: TestApp;
  let cast: DemoCast;
  let conversationId: string;
  let replyId: string;
  let expertId: string;
  beforeAll(async () => {
    app = await startTestApp();
    cast = await demoCast(app);
    const created = await app.post('/api/conversations', { message: 'Where is my anvil order?' }, { token: cast.owner });
    expect(created.status).toBe(201);
    conversationId = created.body.id;
    replyId = created.body.messages.find((m: { role: string }) => m.role === 'specialist').id;
    expertId = (await app.get('/api/auth/me', { token: await app.login('expert@platform.demo.invalid', 'demo1234') })).body.id;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers 403 forbidden to every write, and changes nothing', async () => {
    const id = conversationId;
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/api/conversations', { orgId: cast.acmeId, message: 'Written by the operator' }],
      ['POST', `/api/conversations/${id}/messages`, { content: 'Posted as the Specialist?' }],
      ['POST', `/api/conversations/${id}/messages/stream`, { content: 'Streamed as the Specialist?' }],
      ['PATCH', `/api/conversations/${id}/messages/${replyId}`, { content: 'Corrected by the operator' }],
      ['POST', `/api/conversations/${id}/escalate`, { reason: 'operator' }],
      ['PATCH', `/api/conversations/${id}/status`, { status: 'awaiting_client' }],
      ['PATCH', `/api/conversations/${id}/resolve`, undefined],
      ['PATCH', `/api/conversations/${id}/archive`, undefined],
      ['PATCH', `/api/conversations/${id}/reopen`, undefined],
      ['PATCH', `/api/conversations/${id}/unarchive`, undefined],
      ['PATCH', `/api/conversations/${id}/dismiss`, undefined],
      ['PATCH', `/api/conversations/${id}/assign`, { expertId }],
    ];
    const before = (await app.get(`/api/conversations/${id}`, { token: cast.superadmin })).body;
    for (const [method, path, body] of writes) {
      const res = await app.request(method, path, { token: cast.aiOperator, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body, `${method} ${path}`).toMatchObject({ statusCode: 403, code: 'forbidden' });
    }
    const after = (await app.get(`/api/conversations/${id}`, { token: cast.superadmin })).body;
    expect(after.status).toBe(before.status);
    expect(after.messages).toEqual(before.messages);
    expect((await app.get(`/api/conversations?orgId=${cast.acmeId}`, { token: cast.superadmin })).body.items).toHaveLength(1);
  });

  it('still reads: the list, a thread, the search', async () => {
    const list = await app.get(`/api/conversations?orgId=${cast.acmeId}`, { token: cast.aiOperator });
    expect(list.status).toBe(200);
    expect(list.body.items.map((c: { id: string }) => c.id)).toContain(conversationId);
    const thread = await app.get(`/api/conversations/${conversationId}`, { token: cast.aiOperator });
    expect(thread.status).toBe(200);
    expect(thread.body.messages.length).toBeGreaterThan(0);
    const search = await app.get(`/api/conversations/search?q=anvil&orgId=${cast.acmeId}`, { token: cast.aiOperator });
    expect(search.status).toBe(200);
    expect(search.body.items.length).toBeGreaterThan(0);
  });

  it("reads an org's integrations but cannot add, change or remove one (refused, nothing changed)", async () => {
    const base = `/api/orgs/${cast.acmeId}/integrations`;
    const created = await app.post(base, { channel: 'chat-a', externalId: 'T-OPERATOR' }, { token: cast.superadmin });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const writes: Array<[string, string, unknown]> = [
      ['POST', base, { channel: 'messaging-b', externalId: 'operator-bot' }],
      ['PATCH', `${base}/${id}`, { enabled: false }],
      ['DELETE', `${base}/${id}`, undefined],
    ];
    for (const [method, path, body] of writes) {
      // Refused as the org-role guard refuses any role outside a route's policy (403 or 404, never a write).
      const res = await app.request(method, path, { token: cast.aiOperator, body });
      expect([403, 404], `${method} ${path}`).toContain(res.status);
      expect(res.body, `${method} ${path}`).toMatchObject({ statusCode: res.status, code: res.status === 403 ? 'forbidden' : 'not_found' });
    }
    const listed = await app.get(base, { token: cast.aiOperator });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((i: { id: string; enabled: boolean }) => [i.id, i.enabled])).toEqual([[id, created.body.enabled]]);
    expect((await app.get(`${base}/${id}`, { token: cast.aiOperator })).status).toBe(200);
  });
});
