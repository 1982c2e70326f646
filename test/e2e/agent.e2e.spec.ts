import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentService, AgentTurnError, type AgentTurnInput } from '../../src/modules/agent/index.js';
import { llmRuns } from '../../src/modules/agent/agent.tables.js';
import { OrgsService } from '../../src/modules/orgs/index.js';
import { unscopedOrg } from '../../src/platform/tenancy/org-scope.js';
import { FakeProvider } from '../support/llm-provider.js';
import { demoCast, type DemoCast } from '../support/tenants.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
const MAYA = { id: randomUUID(), name: 'Maya Chen', persona: 'You are Maya, a marketing Specialist: concise, friendly.' };

function turn(orgId: string, question: string, extra: Partial<AgentTurnInput> = {}): AgentTurnInput {
  return {
    orgId,
    assignmentId: randomUUID(),
    specialist: MAYA,
    conversationId: randomUUID(),
    turnMessageId: randomUUID(),
    history: [
      { role: 'user', content: 'Hello!' },
      { role: 'assistant', content: 'Hi, how can I help?' },
      { role: 'user', content: question },
    ],
    ...extra,
  };
}

async function rowsFor(app: TestApp, messageId: string) {
  return app.running.dbService.db.select().from(llmRuns).where(eq(llmRuns.messageId, messageId)).orderBy(llmRuns.createdAt);
}

describe('Specialist agent on the offline model', () => {
  let app: TestApp;
  let agent: AgentService;
  let acmeId: string;
  let owner: string;

  beforeAll(async () => {
    app = await startTestApp();
    agent = app.running.app.get(AgentService);
    acmeId = (await app.running.app.get(OrgsService).findBySlug('acme'))!.id;
    owner = await app.login('org_admin@acme.demo.invalid', PASSWORD);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('streams a deterministic offline answer as the Specialist and records one ledger row at zero cost', async () => {
    const deltas: string[] = [];
    const input = turn(acmeId, 'Could you draft a headline for our spring sale?', { onTextDelta: (d) => deltas.push(d) });
    const result = await agent.runTurn(input);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(result.text);
    expect(result.text).toMatch(/^Hello, this is Maya Chen\./);
    expect(result.text).toContain('offline model: a live language model is not configured');
    expect(result.text).toContain('You wrote: "Could you draft a headline for our spring sale?"');
    expect(result).toMatchObject({ provider: 'offline', model: 'offline-specialist-1', costMicroUsd: 0 });
    expect(result.inputTokens).toBeGreaterThan(50);
    expect(result.outputTokens).toBeGreaterThan(20);

    const rows = await rowsFor(app, input.turnMessageId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      orgId: acmeId,
      osaId: input.assignmentId,
      conversationId: input.conversationId,
      messageId: input.turnMessageId,
      purpose: 'chat-hermes',
      provider: 'offline',
      model: 'offline-specialist-1',
      inputTokens: result.inputTokens,
      outputTokens: result.outputTokens,
      costMicroUsd: 0,
      outcome: 'ok',
      error: null,
    });
    expect(rows[0]!.latencyMs).toBeGreaterThanOrEqual(0);

    const again = await agent.runTurn(turn(acmeId, 'Could you draft a headline for our spring sale?', { purpose: 'chat-test' }));
    expect(again.text).toBe(result.text);
    expect([again.inputTokens, again.outputTokens]).toEqual([result.inputTokens, result.outputTokens]);
  });

  it('gives the same answer whether the turn is streamed or not, a tool step included', async () => {
    for (const question of ['Could you draft a headline for our spring sale?', 'What time is it over there?']) {
      const deltas: string[] = [];
      const streamed = await agent.runTurn(turn(acmeId, question, { onTextDelta: (d) => deltas.push(d) }));
      const whole = await agent.runTurn(turn(acmeId, question));
      expect(deltas.join('')).toBe(streamed.text);
      // The org's local time may tick between the two turns; everything else is the same.
      const withoutTime = (text: string) => text.replace(/"(time|utc)":"[^"]*"/g, '');
      expect(withoutTime(whole.text)).toBe(withoutTime(streamed.text));
      expect([whole.inputTokens, whole.outputTokens]).toEqual([streamed.inputTokens, streamed.outputTokens]);
    }
  });

  it("puts the org's client briefs into the prompt (more input tokens, and the answer knows they exist)", async () => {
    const before = await agent.runTurn(turn(acmeId, 'Any news?'));
    await app.post('/api/client-briefs', { title: 'Products', content: 'Acme sells anvils, rockets and giant magnets to coyotes. '.repeat(10) }, { token: owner });
    const after = await agent.runTurn(turn(acmeId, 'Any news?'));
    expect(after.inputTokens).toBeGreaterThan(before.inputTokens + 100);
    expect(after.text).toMatch(/I have \d+ client briefs? on file for your organization\./);
  });

  it("runs the org-time tool for a time question: two model calls, two ledger rows, the org's own timezone in the answer", async () => {
    const input = turn(acmeId, 'What time is it over there?');
    const result = await agent.runTurn(input);
    expect(result.text).toContain('I looked it up. get_org_local_time: {"timezone":"Europe/Paris"');
    const rows = await rowsFor(app, input.turnMessageId);
    expect(rows.map((r) => r.outcome)).toEqual(['ok', 'ok']);
    expect(rows.reduce((n, r) => n + r.inputTokens, 0)).toBe(result.inputTokens);
    expect(rows.reduce((n, r) => n + r.outputTokens, 0)).toBe(result.outputTokens);
  });

  it('does not offer a tool the org has forbidden', async () => {
    expect((await app.request('PUT', `/api/orgs/${acmeId}/tool-permissions/get_org_local_time`, { token: owner, body: { enabled: false } })).status).toBe(200);
    const input = turn(acmeId, 'What time is it over there?');
    const result = await agent.runTurn(input);
    expect(result.text).not.toContain('get_org_local_time');
    expect(await rowsFor(app, input.turnMessageId)).toHaveLength(1);
    await app.request('PUT', `/api/orgs/${acmeId}/tool-permissions/get_org_local_time`, { token: owner, body: { enabled: true } });
  });

  it('sums the ledger per org and per OSA for a period', async () => {
    const input = turn(acmeId, 'Count me in');
    await agent.runTurn(input);
    const now = Date.now();
    const byOrg = await agent.costsByOrg(new Date(now - 3600_000), new Date(now + 1000));
    const acme = byOrg.find((r) => r.orgId === acmeId)!;
    expect(acme.calls).toBeGreaterThanOrEqual(8);
    expect(acme).toMatchObject({ costMicroUsd: 0, errors: 0 });
    expect(acme.inputTokens).toBeGreaterThan(0);
    const byOsa = await agent.costsByOsa(unscopedOrg(acmeId, 'test: org A'), new Date(now - 3600_000), new Date(now + 1000));
    expect(byOsa.find((r) => r.osaId === input.assignmentId)).toMatchObject({ calls: 1 });
    expect(await agent.costsByOrg(new Date(now + 3600_000), new Date(now + 7200_000))).toEqual([]);
  });

  it('refuses to run inside a database transaction', async () => {
    await expect(app.running.dbService.transaction(() => agent.runTurn(turn(acmeId, 'Hi')))).rejects.toThrow(/inside a database transaction/);
  });

  it('answers 404 for an unknown org', async () => {
    await expect(agent.runTurn(turn(randomUUID(), 'Hi'))).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('Agent tools and tool permissions (spec 4.6, 9.1)', () => {
  let app: TestApp;
  let t: DemoCast & Record<string, string>;

  beforeAll(async () => {
    app = await startTestApp();
    t = { ...(await demoCast(app)), expert: await app.login('expert@platform.demo.invalid', PASSWORD) };
  });
  afterAll(async () => {
    await app?.close();
  });

  const put = (orgId: string, tool: string, body: unknown, token: string) => app.request('PUT', `/api/orgs/${orgId}/tool-permissions/${tool}`, { token, body });

  it('lists the tool descriptors and serves one by name under /api/v1/agent-api/tools', async () => {
    const list = await app.get('/api/v1/agent-api/tools', { token: t.member });
    expect(list.status).toBe(200);
    expect(list.body.nextCursor).toBeNull();
    const byName = Object.fromEntries((list.body.items as Array<{ name: string; kind: string }>).map((d) => [d.name, d.kind]));
    expect(byName).toEqual({ get_org_local_time: 'bespoke', read_client_brief: 'bespoke', calendar_list_events: 'nango', crm_find_contact: 'nango' });
    const one = await app.get('/api/v1/agent-api/tools/read_client_brief', { token: t.member });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      name: 'read_client_brief',
      kind: 'bespoke',
      description: expect.stringContaining('briefs'),
      inputSchema: expect.objectContaining({ type: 'object', properties: { query: expect.objectContaining({ type: 'string', maxLength: 200 }) } }),
    });
    expect((await app.get('/api/v1/agent-api/tools/calendar_list_events', { token: t.expert })).body.kind).toBe('nango');
    expect((await app.get('/api/v1/agent-api/tools/no_such_tool', { token: t.member })).status).toBe(404);
    expect((await app.get('/api/v1/agent-api/tools/Not%20A%20Tool', { token: t.member })).status).toBe(404);
    expect((await app.get('/api/v1/agent-api/tools')).status).toBe(401);
  });

  it("shows an org's permissions: bespoke tools on by default and offered, hosted integrations off and never available", async () => {
    const res = await app.get(`/api/orgs/${t.acmeId}/tool-permissions`, { token: t.owner });
    expect(res.status).toBe(200);
    const byName = Object.fromEntries((res.body.items as Array<{ toolName: string }>).map((p) => [p.toolName, p]));
    expect(byName.get_org_local_time).toMatchObject({ orgId: t.acmeId, kind: 'bespoke', enabled: true, source: 'default', available: true, offered: true, updatedBy: null });
    expect(byName.crm_find_contact).toMatchObject({ kind: 'nango', enabled: false, source: 'default', available: false, offered: false });
    for (const token of [t.am, t.superadmin, t.aiOperator]) expect((await app.get(`/api/orgs/${t.acmeId}/tool-permissions`, { token })).status).toBe(200);
    expect((await app.get(`/api/orgs/${t.acmeId}/tool-permissions`, { token: t.member })).status).toBe(403);
    expect((await app.get(`/api/orgs/${t.acmeId}/tool-permissions`, { token: t.hooliOwner })).status).toBe(404);
  });

  it('lets the org owner, an account manager and a superadmin set a permission, audited', async () => {
    const off = await put(t.acmeId, 'read_client_brief', { enabled: false }, t.owner);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ toolName: 'read_client_brief', enabled: false, source: 'org', offered: false, updatedAt: expect.any(String) });
    expect((await put(t.acmeId, 'read_client_brief', { enabled: true }, t.am)).body).toMatchObject({ enabled: true, offered: true });
    expect((await put(t.hooliId, 'get_org_local_time', { enabled: false }, t.superadmin)).status).toBe(200);
    // Permitting a hosted integration records the choice; without a connection it is still not offered.
    expect((await put(t.acmeId, 'calendar_list_events', { enabled: true }, t.owner)).body).toMatchObject({ kind: 'nango', enabled: true, available: false, offered: false });
    const audit = await app.get(`/api/ops/audit?action=tool_permission.updated&orgId=${t.acmeId}`, { token: t.superadmin });
    expect(audit.body.items).toHaveLength(3);
    expect(audit.body.items.map((r: { resourceId: string }) => r.resourceId).sort()).toEqual(['calendar_list_events', 'read_client_brief', 'read_client_brief']);
    expect(audit.body.items.find((r: { meta: { enabled: boolean } }) => r.meta.enabled === false)).toMatchObject({ meta: { previous: { default: true } } });
  });

  it('refuses other callers: a plain member 403, another org or a non-member 404, unknown tool or org 404, bad body 400', async () => {
    expect((await put(t.acmeId, 'get_org_local_time', { enabled: false }, t.member)).status).toBe(403);
    expect((await put(t.acmeId, 'get_org_local_time', { enabled: false }, t.hooliOwner)).status).toBe(404);
    expect((await put(t.acmeId, 'get_org_local_time', { enabled: false }, t.expert)).status).toBe(404);
    expect((await put(t.acmeId, 'get_org_local_time', { enabled: false }, t.aiOperator)).status).toBe(404);
    expect((await put(t.acmeId, 'no_such_tool', { enabled: true }, t.owner)).status).toBe(404);
    expect((await put(t.acmeId, 'BAD NAME', { enabled: true }, t.owner)).status).toBe(404);
    expect((await put(randomUUID(), 'get_org_local_time', { enabled: true }, t.am)).status).toBe(404);
    const bad = await put(t.acmeId, 'get_org_local_time', { enabled: 'yes' }, t.owner);
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([expect.objectContaining({ field: 'enabled' })]);
    expect((await app.get(`/api/orgs/${t.acmeId}/tool-permissions`, { token: t.owner })).body.items.find((p: { toolName: string }) => p.toolName === 'get_org_local_time').enabled).toBe(true);
  });

  it('lists the agent routes in the OpenAPI document', async () => {
    const doc = (await app.get('/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    expect(doc.paths['/api/v1/agent-api/tools']?.get).toBeDefined();
    expect(doc.paths['/api/v1/agent-api/tools/{toolName}']?.get).toBeDefined();
    expect(doc.paths['/api/orgs/{orgId}/tool-permissions']?.get).toBeDefined();
    expect(doc.paths['/api/orgs/{orgId}/tool-permissions/{toolName}']?.put).toBeDefined();
  });
});

describe('Specialist agent on an openai-compatible provider', () => {
  const provider = new FakeProvider();
  let app: TestApp;
  let agent: AgentService;
  let acmeId: string;
  const TIMEOUT_MS = 1500;

  beforeAll(async () => {
    const baseUrl = await provider.start();
    app = await startTestApp({ env: { LLM_PROVIDER: 'openai-compatible', LLM_BASE_URL: baseUrl, LLM_MODEL: 'gpt-4o-mini', LLM_API_KEY: 'test-key', LLM_TIMEOUT_MS: String(TIMEOUT_MS) } });
    agent = app.running.app.get(AgentService);
    acmeId = (await app.running.app.get(OrgsService).findBySlug('acme'))!.id;
  });
  afterAll(async () => {
    await app?.close();
    await provider.stop();
  });

  it("streams the provider's answer and prices its reported tokens from the price table", async () => {
    provider.mode = 'ok';
    const deltas: string[] = [];
    const input = turn(acmeId, 'Hi', { onTextDelta: (d) => deltas.push(d) });
    const result = await agent.runTurn(input);
    expect(deltas).toEqual(['Hello from ', 'a live ', 'model.']);
    // gpt-4o-mini: 1000 input tokens at $0.15/M + 500 output tokens at $0.60/M = 450 micro-USD.
    expect(result).toEqual({ text: 'Hello from a live model.', provider: 'openai-compatible', model: 'gpt-4o-mini', inputTokens: 1000, outputTokens: 500, costMicroUsd: 450 });
    const rows = await rowsFor(app, input.turnMessageId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ provider: 'openai-compatible', model: 'gpt-4o-mini', inputTokens: 1000, outputTokens: 500, costMicroUsd: 450, outcome: 'ok' });
    const sent = provider.requests.at(-1)!;
    expect(sent.stream).toBe(true);
    expect(sent.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('Your name is Maya Chen.') });
    expect(sent.messages.at(-1)).toMatchObject({ role: 'user', content: 'Hi' });
    expect(sent.tools?.map((t) => t.function.name).sort()).toEqual(['get_org_local_time', 'read_client_brief']);
  });

  it('asks for one completion, not a stream, when nobody reads the deltas: the same text, tokens and ledger row', async () => {
    provider.mode = 'ok';
    const input = turn(acmeId, 'Hi');
    const result = await agent.runTurn(input);
    expect(result).toEqual({ text: 'Hello from a live model.', provider: 'openai-compatible', model: 'gpt-4o-mini', inputTokens: 1000, outputTokens: 500, costMicroUsd: 450 });
    expect(provider.requests.at(-1)!.stream).not.toBe(true);
    const rows = await rowsFor(app, input.turnMessageId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ inputTokens: 1000, outputTokens: 500, costMicroUsd: 450, outcome: 'ok' });
  });

  it('never offers a hosted integration, even when the org permits it', async () => {
    provider.mode = 'ok';
    const owner = await app.login('org_admin@acme.demo.invalid', PASSWORD);
    expect((await app.request('PUT', `/api/orgs/${acmeId}/tool-permissions/crm_find_contact`, { token: owner, body: { enabled: true } })).status).toBe(200);
    await agent.runTurn(turn(acmeId, 'Find Wile E. in our CRM'));
    expect(provider.requests.at(-1)!.tools?.map((t) => t.function.name)).not.toContain('crm_find_contact');
  });

  it('runs a tool step through the provider: the tool result reaches the second call, one priced row per call', async () => {
    provider.mode = 'tool';
    const before = provider.requests.length;
    const input = turn(acmeId, 'What time is it there?');
    const result = await agent.runTurn(input);
    expect(result.text).toBe('Hello from a live model.');
    expect(provider.requests.length - before).toBe(2);
    const toolMessage = provider.requests.at(-1)!.messages.find((m) => m.role === 'tool');
    expect(JSON.parse(toolMessage!.content as string)).toMatchObject({ timezone: 'Europe/Paris', date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    const rows = await rowsFor(app, input.turnMessageId);
    expect(rows.map((r) => [r.inputTokens, r.outputTokens, r.costMicroUsd, r.outcome])).toEqual([
      [200, 10, 36, 'ok'],
      [1000, 500, 450, 'ok'],
    ]);
    expect(result).toMatchObject({ inputTokens: 1200, outputTokens: 510, costMicroUsd: 486 });
  });

  it('throws on a 500 after one call (no SDK retry) and records the failed call', async () => {
    provider.mode = 'fail';
    const before = provider.requests.length;
    const input = turn(acmeId, 'Hi');
    const err = await agent.runTurn(input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentTurnError);
    expect((err as AgentTurnError).reason).toMatch(/^HTTP 500 .*upstream exploded/);
    expect(provider.requests.length - before).toBe(1);
    const rows = await rowsFor(app, input.turnMessageId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ outcome: 'error', inputTokens: 0, outputTokens: 0, costMicroUsd: 0, provider: 'openai-compatible', model: 'gpt-4o-mini' });
    expect(rows[0]!.error).toMatch(/HTTP 500 .*upstream exploded/);
  });

  it('gives up on a provider that hangs past the request timeout, and records it', async () => {
    provider.mode = 'hang';
    const input = turn(acmeId, 'Hi');
    const started = Date.now();
    const err = await agent.runTurn(input).catch((e: unknown) => e);
    const took = Date.now() - started;
    expect(err).toBeInstanceOf(AgentTurnError);
    expect((err as AgentTurnError).reason).toBe(`timeout: no complete answer within ${TIMEOUT_MS} ms`);
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(took).toBeLessThan(TIMEOUT_MS + 5000);
    const rows = await rowsFor(app, input.turnMessageId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ outcome: 'error', error: `timeout: no complete answer within ${TIMEOUT_MS} ms` });
    expect(rows[0]!.latencyMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  });

  it('stops when the caller aborts, and records the cancelled call', async () => {
    provider.mode = 'hang';
    const controller = new AbortController();
    const input = turn(acmeId, 'Hi', { abortSignal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const err = await agent.runTurn(input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentTurnError);
    expect((err as AgentTurnError).reason).toBe('cancelled by the caller');
    expect((await rowsFor(app, input.turnMessageId)).map((r) => [r.outcome, r.error])).toEqual([['error', 'cancelled by the caller']]);
  });
});
