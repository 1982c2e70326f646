import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_TABS } from '../../src/contracts/conversations.js';
import { llmRuns } from '../../src/modules/agent/agent.tables.js';
import { billingSignature } from '../../src/modules/billing/webhook.verify.js';
import { DunningService } from '../../src/modules/billing/index.js';
import { OrgsService } from '../../src/modules/orgs/index.js';
import { setLogDestination } from '../../src/platform/observability/logger.js';
import { errorShapeProblem } from '../support/error-shape.js';
import { processedEvent, rows } from '../support/inbound.js';
import { postInboundMail } from '../support/inbound-mail.js';
import { FakeProvider } from '../support/llm-provider.js';
import { codeMailedBy, waitForMail } from '../support/mail.js';
import { collect, connectSocket, waitFor } from '../support/sockets.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startFakeVendor, type FakeVendor } from '../support/vendor.js';
import { POOL_ACCOUNT_SID, connectVerified, messagingACall } from '../support/webhooks.js';

/**
 * Rules of the specification that no other test file proved (docs/spec-coverage.md, issue 17):
 * one case per row of that page, named after the rule.
 */

const PASSWORD = 'demo1234';
const DAY = 86_400_000;
const PUBLIC_URL = 'https://service.example.com';
const EMAIL_SECRET = 'spec-rules-email-signing-secret';
const MESSAGING_A_TOKEN = 'spec-rules-messaging-a-token';
const MB_SECRET = 'spec-rules-mb-webhook-secret-0123456789';
const BILLING_SECRET = 'spec-rules-billing-secret';
/** The Specialist address of the seeded acme OSA (Émilie Laurent on acme). */
const ACME_ALIAS = 'emilie.acme@workspace.example.com';
/** Spec 8: a messaging-a number pool of about 20 numbers. */
const POOL = Array.from({ length: 20 }, (_, i) => `+1555010${String(i).padStart(4, '0')}`);
const CLIENT_NUMBER = '+15557650001';

/** Names a legacy confidence-threshold / review-gate field went by; the contracts declare none of them (spec 1.3, 2.3, 9.4). */
const LEGACY_GATE_FIELDS = {
  confidenceThreshold: 0.99,
  confidence_threshold: 0.99,
  autoSendThreshold: 1,
  reviewRequired: true,
  requiresReview: true,
  reviewGate: 'always',
  review_gate_enabled: true,
  approvalRequired: true,
};
const LEGACY_GATE_NAME = /threshold|reviewgate|review_gate|requiresreview|reviewrequired|approval/i;

/** Every key of every object inside a JSON value. */
function keysDeep(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysDeep(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysDeep(v, out);
    }
  }
  return out;
}

/** The property names every schema of the OpenAPI document declares (request and response bodies, parameters). */
function declaredProperties(doc: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(doc)) for (const v of doc) declaredProperties(v, out);
  else if (doc && typeof doc === 'object') {
    const o = doc as Record<string, unknown>;
    if (o.properties && typeof o.properties === 'object') for (const k of Object.keys(o.properties)) out.add(k);
    if (o.in && typeof o.name === 'string') out.add(o.name);
    for (const v of Object.values(o)) declaredProperties(v, out);
  }
  return out;
}

interface OpenApiDoc {
  paths: Record<string, Record<string, { security?: unknown[]; parameters?: Array<{ name: string; in: string; schema?: { enum?: string[] } }> }>>;
  webhooks?: Record<string, unknown>;
}

describe('spec rules (docs/spec-coverage.md rows without a proving test elsewhere)', () => {
  const provider = new FakeProvider();
  let vendor: FakeVendor;
  let app: TestApp;
  let doc: OpenApiDoc;
  let am: string;
  let superadmin: string;
  let expert: string;
  let client: string;
  let acmeId: string;
  let n = 0;

  const unique = (prefix: string) => `${prefix}-${++n}-${Date.now().toString(36)}`;
  const step1 = (slug: string, over: Record<string, unknown> = {}) => ({
    legalName: `Org ${slug}`,
    slug,
    industry: 'finance',
    corporateDomains: [`${slug}.example.com`],
    adminEmail: `owner@${slug}.example.com`,
    website: `https://${slug}.example.com`,
    timezone: 'Europe/Berlin',
    ...over,
  });
  const newOrg = async (over: Record<string, unknown> = {}) => {
    const res = await app.post('/api/am/orgs', step1(unique('sr'), over), { token: am });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; slug: string; adminEmail: string; legalName: string; status: string };
  };
  const pool = async () => (await app.get('/api/am/specialists?limit=200', { token: am })).body.items as Array<{ id: string; slug: string }>;
  const statusOf = async (orgId: string) => (await app.get(`/api/am/orgs/${orgId}`, { token: am })).body.status as string;
  const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
  /** Phase 2: the invited admin signs in with the mailed code and completes. */
  const completePhase2 = async (org: { id: string; slug: string; adminEmail: string }, token: string, name = 'Ada Admin') => {
    // The code may go out from a queued job: wait for the new mail that carries it.
    const code = await codeMailedBy(app.url, org.adminEmail, async () => expect((await app.post('/api/auth/send-invite-otp', { token })).status).toBe(204));
    const session = await app.post('/api/auth/verify-invite-otp', { token, code });
    expect(session.status).toBe(200);
    const done = await app.post(`/api/onboarding/${token}/complete`, { legalName: `Final ${org.slug}`, slug: org.slug, password: 'a strong password', name }, { token: session.body.token });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    return done.body as { token: string; org: { status: string; legalName: string } };
  };
  const billingEvent = (id: string, type: 'payment_failed' | 'payment_succeeded', orgId: string) => {
    const raw = JSON.stringify({ id, type, data: { orgId, failureReason: type === 'payment_failed' ? 'card declined' : undefined } });
    return app.request('POST', '/api/billing/provider/webhook', {
      body: raw,
      headers: { 'content-type': 'application/json', 'x-billing-signature': billingSignature(BILLING_SECRET, Math.floor(Date.now() / 1000), raw) },
    });
  };
  const queue = async (status: string) => (await app.get(`/api/expert-queue?status=${status}&limit=200`, { token: expert })).body.items as Array<{ conversationId: string; status: string }>;
  const ledgerOf = (conversationId: string) => app.running.dbService.db.select().from(llmRuns).where(eq(llmRuns.conversationId, conversationId));

  beforeAll(async () => {
    const llm = await provider.start();
    vendor = await startFakeVendor();
    app = await startTestApp({
      env: {
        PUBLIC_URL,
        LLM_PROVIDER: 'openai-compatible',
        LLM_BASE_URL: llm,
        LLM_MODEL: 'gpt-4o-mini',
        LLM_API_KEY: 'test-key',
        EMAIL_INBOUND_SIGNING_SECRET: EMAIL_SECRET,
        MESSAGING_A_AUTH_TOKEN: MESSAGING_A_TOKEN,
        MESSAGING_A_NUMBER_POOL: POOL.join(','),
        MESSAGING_A_API_BASE_URL: `${vendor.url}/messaging-a`,
        MESSAGING_B_API_BASE_URL: `${vendor.url}/messaging-b`,
        CHAT_A_API_BASE_URL: `${vendor.url}/chat-a`,
        BILLING_WEBHOOK_SECRET: BILLING_SECRET,
      },
    });
    doc = (await app.get('/api/docs')).body as OpenApiDoc;
    [am, superadmin, expert, client] = await Promise.all(
      ['account_manager@platform.demo.invalid', 'superadmin@platform.demo.invalid', 'expert@platform.demo.invalid', 'client@acme.demo.invalid'].map((e) => app.login(e, PASSWORD)),
    );
    acmeId = (await app.running.app.get(OrgsService).findBySlug('acme'))!.id;
  });
  afterAll(async () => {
    await app?.close();
    await vendor?.close();
    await provider.stop();
  });

  it('keeps legacy confidence-threshold and review-gate fields inert: a conversation carrying them gets its reply at once, exactly once, unchanged', async () => {
    provider.mode = 'ok';
    provider.echo = true;
    try {
      const question = 'When does our spring campaign start?';
      const plain = await app.post('/api/conversations', { message: question }, { token: client });
      const gated = await app.post('/api/conversations', { message: question, ...LEGACY_GATE_FIELDS }, { token: client });
      expect(plain.status).toBe(201);
      expect(gated.status).toBe(201);
      // Delivered directly: the reply is in the answer of the create call, the same words as without the fields.
      expect(gated.body.messages.map((m: { role: string }) => m.role)).toEqual(['client', 'specialist']);
      expect(gated.body.messages[1].content).toBe(`Answering: ${question}`);
      expect(gated.body.messages[1].content).toBe(plain.body.messages[1].content);
      for (const key of Object.keys(LEGACY_GATE_FIELDS)) expect(keysDeep(gated.body).has(key), key).toBe(false);

      // A follow-up message with the fields: answered once as well.
      const followUp = await app.post(`/api/conversations/${gated.body.id}/messages`, { content: 'And the budget?', ...LEGACY_GATE_FIELDS }, { token: client });
      expect(followUp.status).toBe(201);
      expect(followUp.body.reply).toMatchObject({ role: 'specialist', content: 'Answering: And the budget?' });
      const thread = (await app.get(`/api/conversations/${gated.body.id}`, { token: client })).body;
      expect(thread.messages.map((m: { role: string }) => m.role)).toEqual(['client', 'specialist', 'client', 'specialist']);
      // No review gate: nothing waits for an Expert's approval.
      expect((await queue('all')).some((i) => i.conversationId === gated.body.id)).toBe(false);
      // The conversation contract declares no such field.
      const create = (doc.paths['/api/conversations']!.post as { requestBody?: unknown }).requestBody;
      expect([...declaredProperties(create)].filter((k) => LEGACY_GATE_NAME.test(k))).toEqual([]);
    } finally {
      provider.echo = false;
    }
  });

  it('keeps a legacy threshold field on an assignment inert: the assignment is made as without it, and its Specialist replies', async () => {
    provider.mode = 'ok';
    const org = await newOrg();
    const specialist = (await pool()).find((s) => s.slug === 'maya-chen')!;
    const assigned = await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: specialist.id, ...LEGACY_GATE_FIELDS }, { token: am });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(201);
    expect(assigned.body).toMatchObject({ specialistId: specialist.id, isPrimary: true, monthlyRate: null, rate: { source: 'specialist' } });
    const detail = (await app.get(`/api/am/orgs/${org.id}/specialist-assignments/${assigned.body.id}`, { token: am })).body;
    for (const body of [assigned.body, detail]) expect([...keysDeep(body)].filter((k) => LEGACY_GATE_NAME.test(k))).toEqual([]);

    // The org goes live and the Specialist answers its client directly.
    expect((await app.post(`/api/am/orgs/${org.id}/finish`, undefined, { token: am })).status).toBe(200);
    const orgClient = await app.demoLogin('client', org.slug);
    const conv = await app.post('/api/conversations', { message: 'Hello Maya' }, { token: orgClient });
    expect(conv.status).toBe(201);
    expect(conv.body.messages.map((m: { role: string }) => m.role)).toEqual(['client', 'specialist']);
    expect(conv.body.messages[1].content).toBe('Hello from a live model.');
    const assign = (doc.paths['/api/am/orgs/{orgId}/specialist']!.post as { requestBody?: unknown }).requestBody;
    expect([...declaredProperties(assign)].filter((k) => LEGACY_GATE_NAME.test(k))).toEqual([]);
  });

  it('keeps threshold and review-gate fields on an assignment update inert: the rate changes, nothing else; the fields alone change nothing', async () => {
    const org = await newOrg();
    const specialist = (await pool())[0]!;
    const osa = (await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: specialist.id }, { token: am })).body;
    const path = `/api/am/orgs/${org.id}/specialist-assignments/${osa.id}`;
    const before = (await app.get(path, { token: am })).body;

    // Only legacy fields: the update has nothing it knows, and is refused with the field it misses.
    const alone = await app.patch(path, LEGACY_GATE_FIELDS, { token: am });
    expect(alone.status).toBe(400);
    expect(errorShapeProblem(alone.status, alone.headers, alone.body)).toBeUndefined();
    expect(alone.body.code).toBe('validation_failed');
    expect(alone.body.details.map((d: { field: string }) => d.field)).toEqual(['monthlyRate']);
    expect((await app.get(path, { token: am })).body).toEqual(before);

    // With a rate: exactly the rate changes.
    const updated = await app.patch(path, { monthlyRate: 777, overrideReason: 'pilot', ...LEGACY_GATE_FIELDS }, { token: am });
    expect(updated.status).toBe(200);
    const after = (await app.get(path, { token: am })).body;
    expect(after).toEqual({
      ...before,
      monthlyRate: 777,
      overrideReason: 'pilot',
      monthly_rate_config: { ...before.monthly_rate_config, base_rate: 777 },
      rate: { amount: 777, currency: before.monthly_rate_config.currency, source: 'override' },
    });
    for (const [p, methods] of Object.entries(doc.paths).filter(([p]) => p.includes('specialist'))) {
      expect(
        [...declaredProperties(methods)].filter((k) => LEGACY_GATE_NAME.test(k)),
        p,
      ).toEqual([]);
    }
  });

  it('provides no outbound org-level webhooks: none in the OpenAPI document, no org setting for one, and a URL put in integration settings is never called', async () => {
    // OpenAPI 3.1 describes the requests an API makes to its subscribers under `webhooks`: there are none.
    expect(doc.webhooks ?? {}).toEqual({});
    // The routes named after webhooks are the inbound receivers (public POSTs) and the list of their URLs.
    const webhookRoutes = Object.entries(doc.paths).filter(([p]) => /webhook/i.test(p));
    for (const [p, methods] of webhookRoutes) {
      if (p === '/api/orgs/{orgId}/channels/webhook-urls') expect(Object.keys(methods)).toEqual(['get']);
      else {
        expect(p, p).toMatch(/^\/api\/(channels|billing)\//);
        expect(Object.keys(methods), p).toEqual(['post']);
      }
    }
    expect([...declaredProperties(doc)].filter((k) => /webhook.?url|callback|subscri|outbound.?hook/i.test(k))).toEqual([]);
    const owner = await app.login('org_admin@acme.demo.invalid', PASSWORD);
    const urls = (await app.get(`/api/orgs/${acmeId}/channels/webhook-urls`, { token: owner })).body as Record<string, string[]>;
    for (const url of Object.values(urls).flat()) expect(url.startsWith(`${PUBLIC_URL}/api/channels/`), url).toBe(true);

    // No org setting: an org update with only a webhook URL has nothing to change.
    const org = await newOrg();
    const refused = await app.patch(`/api/am/orgs/${org.id}`, { webhookUrl: `${vendor.url}/org-webhook`, outboundWebhookUrl: `${vendor.url}/org-webhook` }, { token: am });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('validation_failed');
    expect([...keysDeep((await app.get(`/api/am/orgs/${org.id}`, { token: am })).body)].filter((k) => /webhook|callback/i.test(k))).toEqual([]);

    // A URL written into an integration's free-form settings is kept as data and never called.
    const integration = await app.post(
      `/api/orgs/${acmeId}/integrations`,
      {
        channel: 'chat-a',
        externalId: unique('T-HOOK'),
        config: { webhookUrl: `${vendor.url}/org-webhook`, outboundWebhookUrl: `${vendor.url}/org-webhook`, callbackUrl: `${vendor.url}/org-webhook` },
      },
      { token: am },
    );
    expect(integration.status).toBe(201);
    const conv = await app.post('/api/conversations', { message: 'Anyone listening?' }, { token: client });
    expect(conv.status).toBe(201);
    await app.post(`/api/conversations/${conv.body.id}/messages`, { content: 'An Expert follow-up' }, { token: expert });
    await app.patch(`/api/conversations/${conv.body.id}/resolve`, undefined, { token: client });
    await app.post('/api/notifications', { userId: (await app.get('/api/auth/me', { token: client })).body.id, type: 'system', message: 'Hello' }, { token: am });
    await new Promise((r) => setTimeout(r, 500));
    expect(vendor.calls.filter((c) => c.path.includes('org-webhook'))).toEqual([]);
  });

  it('requires the website: omitting it on create is 400 validation_failed on the website field, and an update cannot clear it', async () => {
    const slug = unique('web');
    const { website: _dropped, ...withoutWebsite } = step1(slug);
    const missing = await app.post('/api/am/orgs', withoutWebsite, { token: am });
    expect(missing.status).toBe(400);
    expect(errorShapeProblem(missing.status, missing.headers, missing.body)).toBeUndefined();
    expect(missing.body).toMatchObject({ statusCode: 400, code: 'validation_failed', error: 'Bad Request' });
    expect(missing.body.details).toEqual([expect.objectContaining({ field: 'website' })]);
    for (const website of ['', '   ', null]) {
      const res = await app.post('/api/am/orgs', { ...withoutWebsite, website }, { token: am });
      expect(res.status, JSON.stringify(website)).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['website']);
    }
    // Nothing was created under the slug.
    expect((await app.get(`/api/am/slug-availability?slug=${slug}`, { token: am })).body.available).toBe(true);

    const org = await newOrg();
    for (const website of ['', null]) {
      const res = await app.patch(`/api/am/orgs/${org.id}`, { website }, { token: am });
      expect(res.status, JSON.stringify(website)).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['website']);
    }
    expect((await app.get(`/api/am/orgs/${org.id}`, { token: am })).body.website).toBe(`https://${org.slug}.example.com`);
  });

  it('reads back the channel of a conversation opened by an inbound channel: email and messaging-b', async () => {
    provider.mode = 'ok';
    // Email: a mail to the Specialist's workspace address opens an `email` conversation.
    const messageId = `<${unique('m')}@customer.example.com>`;
    const mail = [
      'From: Carol Client <carol@customer.example.com>',
      `To: ${ACME_ALIAS}`,
      'Subject: Channel check',
      `Message-ID: ${messageId}`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Hello by mail',
      '',
    ].join('\r\n');
    expect(await postInboundMail(app.url, EMAIL_SECRET, mail)).toBe(200);
    const byMail = await processedEvent(app.running.dbService, 'email', messageId);
    expect(byMail).toMatchObject({ status: 'done', org_id: acmeId });

    // messaging-b: a bot update opens a `messaging-b` conversation.
    const integration = await connectVerified(app, acmeId, { channel: 'messaging-b', config: { botUsername: 'acme_rules_bot' }, secrets: { webhookSecret: MB_SECRET, botToken: '321:RULES' } }, am);
    const update = { update_id: 5001, message: { message_id: 11, chat: { id: 77, type: 'private' }, from: { id: 77, is_bot: false, first_name: 'Mo' }, text: 'Hello by chat' } };
    const posted = await app.request('POST', '/api/channels/messaging-b/webhook', {
      body: JSON.stringify(update),
      headers: { 'content-type': 'application/json', 'x-messaging-b-secret-token': MB_SECRET },
    });
    expect(posted.status).toBe(200);
    const byChat = await processedEvent(app.running.dbService, 'messaging-b', `${integration.id}:5001`);
    expect(byChat).toMatchObject({ status: 'done', org_id: acmeId });

    const web = (await app.post('/api/conversations', { message: 'Hello by web' }, { token: client })).body;
    for (const [id, channel] of [
      [byMail.conversation_id!, 'email'],
      [byChat.conversation_id!, 'messaging-b'],
      [web.id, 'web'],
    ] as const) {
      // The thread as staff and as the org's client, and the list.
      expect((await app.get(`/api/conversations/${id}`, { token: am })).body.conversation.channel, channel).toBe(channel);
      expect((await app.get(`/api/conversations/${id}`, { token: client })).body.conversation.channel, channel).toBe(channel);
    }
    const listed = (await app.get(`/api/conversations?orgId=${acmeId}&limit=200`, { token: am })).body.items as Array<{ id: string; channel: string }>;
    expect(listed.find((c) => c.id === byMail.conversation_id)?.channel).toBe('email');
    expect(listed.find((c) => c.id === byChat.conversation_id)?.channel).toBe('messaging-b');
  });

  it("records no cost for an Expert's consultation turns: notes, follow-ups and corrections add no ledger row; the Specialist's model calls do", async () => {
    provider.mode = 'ok';
    const conv = (await app.post('/api/conversations', { message: 'Can an Expert look at this?' }, { token: client })).body;
    const reply = conv.messages[1];
    // The Specialist's turn: one priced row (gpt-4o-mini, 1000 + 500 tokens = 450 micro-USD).
    const first = await ledgerOf(conv.id);
    expect(first.map((r) => [r.messageId, r.costMicroUsd, r.purpose])).toEqual([[conv.messages[0].id, 450, 'chat-hermes']]);

    // The Expert consults on the thread: escalation, internal note, follow-up as the Specialist, correction, status.
    expect((await app.post(`/api/conversations/${conv.id}/escalate`, { reason: 'Needs an Expert' }, { token: client })).status).toBe(201);
    const note = await app.post(`/api/conversations/${conv.id}/messages`, { content: 'Internal: checking with finance', isInternal: true }, { token: expert });
    const followUp = await app.post(`/api/conversations/${conv.id}/messages`, { content: 'Our Expert confirms the figures.' }, { token: expert });
    expect([note.status, followUp.status]).toEqual([201, 201]);
    expect(note.body.reply).toBeNull();
    expect(followUp.body.reply).toBeNull();
    expect((await app.patch(`/api/conversations/${conv.id}/messages/${reply.id}`, { content: 'Corrected by the Expert', reason: 'precision' }, { token: expert })).status).toBe(200);
    expect((await app.patch(`/api/conversations/${conv.id}/status`, { status: 'resolved' }, { token: expert })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(await ledgerOf(conv.id)).toEqual(first);
    for (const id of [note.body.id, followUp.body.id]) expect(await app.running.dbService.db.select().from(llmRuns).where(eq(llmRuns.messageId, id))).toEqual([]);

    // The ledger is live: the client's next message is one more priced model call.
    const next = await app.post(`/api/conversations/${conv.id}/messages`, { content: 'Thanks, one more question' }, { token: client });
    const after = await ledgerOf(conv.id);
    expect(after).toHaveLength(2);
    expect(after.find((r) => r.messageId === next.body.id)?.costMicroUsd).toBe(450);
  });

  it("sends the welcome emails on Phase 2: the client admin gets 'Welcome to ...' and the assigned AM the completion notice", async () => {
    const org = await newOrg();
    await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: (await pool())[0]!.id }, { token: am });
    const invite = await app.post(`/api/am/orgs/${org.id}/invite`, {}, { token: am });
    expect(invite.status).toBe(200);
    const welcome = (m: { subject: string }) => m.subject.startsWith('Welcome to ');
    const outbox = async () => (await app.get(`/api/dev/mail?to=${encodeURIComponent(org.adminEmail)}&limit=50`)).body as Array<{ subject: string }>;
    expect((await outbox()).filter(welcome)).toEqual([]);

    const done = await completePhase2(org, tokenOf(invite.body.onboardingUrl), 'Wendy Welcome');
    const mail = await waitForMail(app.url, org.adminEmail, welcome, 'Welcome to ...');
    expect(mail.subject).toBe(`Welcome to ${done.org.legalName}'s workspace`);
    expect(mail.text).toContain('Welcome, Wendy Welcome!');
    expect(mail.text).toContain(`${PUBLIC_URL}/login`);
    expect((await outbox()).filter(welcome)).toHaveLength(1);
    await waitForMail(app.url, 'account_manager@platform.demo.invalid', (m) => m.subject === `${done.org.legalName} completed onboarding`, 'completed onboarding');
  });

  it('filters the attention list by each of the five tabs: All, Pending, Awaiting Reply, Resolved, Snoozed', async () => {
    expect(QUEUE_TABS).toEqual(['all', 'pending', 'awaiting_client', 'resolved', 'snoozed']);
    const param = doc.paths['/api/expert-queue']!.get!.parameters!.find((p) => p.name === 'status');
    expect(param?.schema?.enum).toEqual([...QUEUE_TABS]);

    // Four escalated threads, one per status.
    const threads: Record<string, string> = {};
    for (const status of ['pending', 'awaiting_client', 'resolved', 'snoozed']) {
      const conv = (await app.post('/api/conversations', { message: `Tab ${status}` }, { token: client })).body;
      expect((await app.post(`/api/conversations/${conv.id}/escalate`, { reason: `for ${status}` }, { token: client })).status).toBe(201);
      threads[status] = conv.id;
    }
    expect((await app.post(`/api/conversations/${threads.awaiting_client}/messages`, { content: 'The Expert answers' }, { token: expert })).status).toBe(201);
    expect((await app.patch(`/api/conversations/${threads.resolved}/resolve`, undefined, { token: expert })).status).toBe(200);
    const snoozeUntil = new Date(Date.now() + 3 * DAY).toISOString();
    expect((await app.patch(`/api/conversations/${threads.snoozed}/status`, { status: 'snoozed', snoozeUntil }, { token: expert })).status).toBe(200);

    const ours = new Set(Object.values(threads));
    const all = (await queue('all')).filter((i) => ours.has(i.conversationId));
    expect(all.map((i) => i.conversationId).sort()).toEqual([...ours].sort());
    for (const status of ['pending', 'awaiting_client', 'resolved', 'snoozed']) {
      const tab = (await queue(status)).filter((i) => ours.has(i.conversationId));
      expect(
        tab.map((i) => [i.conversationId, i.status]),
        status,
      ).toEqual([[threads[status], status]]);
      // Every item of a tab has the tab's status.
      expect(
        (await queue(status)).every((i) => i.status === status),
        status,
      ).toBe(true);
      expect((await app.get(`/api/conversations/${threads[status]}`, { token: expert })).body.conversation.status).toBe(status);
    }
    // The legacy alias `open` reads as the Pending tab; anything else is refused.
    expect((await queue('open')).filter((i) => ours.has(i.conversationId)).map((i) => i.conversationId)).toEqual([threads.pending]);
    expect((await app.get('/api/expert-queue?status=archived', { token: expert })).status).toBe(400);
  });

  it('has no unread-count endpoint: none in the OpenAPI document, 404 at the usual paths; clients count entries whose readAt is null', async () => {
    expect(Object.keys(doc.paths).filter((p) => /unread|[/_-]count\b/i.test(p))).toEqual([]);
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/notifications'))).toEqual(['/api/notifications', '/api/notifications/read-all', '/api/notifications/{id}/read']);
    for (const path of ['/api/notifications/unread-count', '/api/notifications/unread', '/api/notifications/count', '/api/notifications/unread_count']) {
      const res = await app.get(path, { token: client });
      expect(res.status, path).toBe(404);
      expect(errorShapeProblem(res.status, res.headers, res.body), path).toBeUndefined();
    }
    // What a client counts instead.
    const me = (await app.get('/api/auth/me', { token: client })).body.id as string;
    const created = await app.post('/api/notifications', { userId: me, type: 'system', message: 'Count me' }, { token: am });
    expect(created.status).toBe(201);
    const list = async () => (await app.get('/api/notifications?limit=200', { token: client })).body as Array<{ id: string; readAt: string | null }>;
    const unread = (await list()).filter((x) => x.readAt === null).length;
    expect((await list()).find((x) => x.id === created.body.id)?.readAt).toBeNull();
    expect((await app.patch(`/api/notifications/${created.body.id}/read`, undefined, { token: client })).status).toBe(200);
    expect((await list()).filter((x) => x.readAt === null).length).toBe(unread - 1);
  });

  it('answers from each of a pool of 20 messaging-a numbers, and refuses a number outside the pool', async () => {
    provider.mode = 'ok';
    await connectVerified(app, acmeId, { channel: 'messaging-a', config: { whitelist: [CLIENT_NUMBER] } }, am);
    const sid = unique('SM');
    for (const [i, to] of POOL.entries()) {
      const call = messagingACall(PUBLIC_URL, MESSAGING_A_TOKEN, { MessageSid: `${sid}-${i}`, From: CLIENT_NUMBER, To: to, Body: `Hello pool number ${i}` });
      const res = await app.request('POST', call.path, { body: call.body, headers: call.headers });
      expect(res.status, to).toBe(200);
    }
    for (const i of POOL.keys()) expect(await processedEvent(app.running.dbService, 'messaging-a', `${sid}-${i}`), String(i)).toMatchObject({ status: 'done', org_id: acmeId });
    const deadline = Date.now() + 20_000;
    while (vendor.sends('/Messages.json').length < POOL.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const sends = vendor.sends('/Messages.json').map((c) => new URLSearchParams(c.body));
    // Each pool number answered the client itself, once.
    expect(sends.map((f) => f.get('From')).sort()).toEqual([...POOL].sort());
    expect(sends.every((f) => f.get('To') === CLIENT_NUMBER)).toBe(true);
    expect(vendor.sends('/Messages.json').every((c) => c.path === `/messaging-a/Accounts/${POOL_ACCOUNT_SID}/Messages.json`)).toBe(true);

    // A 21st number is not the pool's: refused, nothing kept.
    const outside = messagingACall(PUBLIC_URL, MESSAGING_A_TOKEN, { MessageSid: `${sid}-outside`, From: CLIENT_NUMBER, To: '+15550109999', Body: 'Anyone?' });
    expect((await app.request('POST', outside.path, { body: outside.body, headers: outside.headers })).status).toBe(401);
    expect(await rows(app.running.dbService, sql`select id from inbound_events where channel = 'messaging-a' and event_key = ${`${sid}-outside`}`)).toEqual([]);
  });

  it('computes no margin: the ops billing and cost payloads and the OpenAPI document carry no margin field', async () => {
    expect([...declaredProperties(doc)].filter((k) => /margin/i.test(k))).toEqual([]);
    const orgs = await app.get('/api/ops/billing/orgs?limit=200', { token: superadmin });
    expect(orgs.status).toBe(200);
    expect(orgs.body.items.length).toBeGreaterThan(0);
    const payloads = [orgs.body];
    for (const path of [`/api/ops/billing/orgs/${acmeId}`, '/api/ops/billing/costs', '/api/ops/analytics/expert-workload', '/api/ops/analytics/expert-leverage']) {
      const res = await app.get(path, { token: superadmin });
      expect(res.status, path).toBe(200);
      payloads.push(res.body);
    }
    // Revenue (run rate) and cost are both there; a margin is not.
    const keys = keysDeep(payloads);
    expect(keys.has('monthlyRunRateCents')).toBe(true);
    expect([...keys].some((k) => /micro ?usd/i.test(k))).toBe(true);
    expect([...keys].filter((k) => /margin/i.test(k))).toEqual([]);
  });

  it('retains pending_specialist_assignment as an OrgStatus that no org gets: assigning a Specialist leaves the setup in pending_am_setup', async () => {
    const param = doc.paths['/api/am/orgs']!.get!.parameters!.find((p) => p.name === 'status');
    expect(param?.schema?.enum).toContain('pending_specialist_assignment');
    const org = await newOrg();
    expect(org.status).toBe('pending_am_setup');
    // The step the legacy status was named after: a setup without, then with, a Specialist.
    expect((await app.get(`/api/am/orgs/${org.id}/phase0-status`, { token: am })).body).toMatchObject({ ready: true, specialistAssigned: false });
    expect(await statusOf(org.id)).toBe('pending_am_setup');
    await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: (await pool())[0]!.id }, { token: am });
    expect((await app.get(`/api/am/orgs/${org.id}/phase0-status`, { token: am })).body).toMatchObject({ ready: true, specialistAssigned: true });
    expect(await statusOf(org.id)).toBe('pending_am_setup');
    await app.request('DELETE', `/api/am/orgs/${org.id}/specialist/${(await pool())[0]!.id}`, { token: am });
    expect(await statusOf(org.id)).toBe('pending_am_setup');
    const listed = await app.get('/api/am/orgs?status=pending_specialist_assignment&limit=200', { token: am });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([]);
  });

  it('refuses to set pending_specialist_assignment through the API: the org update has no status field', async () => {
    const org = await newOrg();
    const alone = await app.patch(`/api/am/orgs/${org.id}`, { status: 'pending_specialist_assignment' }, { token: am });
    expect(alone.status).toBe(400);
    expect(alone.body.code).toBe('validation_failed');
    const withName = await app.patch(`/api/am/orgs/${org.id}`, { status: 'pending_specialist_assignment', legalName: 'Renamed Org' }, { token: am });
    expect(withName.status).toBe(200);
    expect(withName.body).toMatchObject({ legalName: 'Renamed Org', status: 'pending_am_setup' });
    expect(await statusOf(org.id)).toBe('pending_am_setup');
    const update = (doc.paths['/api/am/orgs/{orgId}']!.patch as { requestBody?: unknown }).requestBody;
    expect(declaredProperties(update).has('status')).toBe(false);
  });

  it('never recycles a reserved slug: after its org is deactivated, the slug is still taken and another org cannot have it (409 conflict)', async () => {
    const orgs = app.running.app.get(OrgsService);
    const org = await newOrg();
    const alias = unique('rebrand');
    expect((await app.post(`/api/am/orgs/${org.id}/slug-aliases`, { slug: alias }, { token: superadmin })).status).toBe(201);
    // Deactivation: the stale-setup archive (spec 8: 90 days) is the path into `deactivated`.
    const swept = await orgs.runLifecycleSweep(new Date(Date.now() + 91 * DAY));
    expect(swept.archived).toContain(org.id);
    expect(await statusOf(org.id)).toBe('deactivated');

    // The reserved slug stays taken...
    expect((await app.get(`/api/am/slug-availability?slug=${alias}`, { token: am })).body).toEqual({ slug: alias, valid: true, available: false, reason: 'taken' });
    const again = await app.post('/api/am/orgs', step1(alias), { token: am });
    expect(again.status).toBe(409);
    expect(errorShapeProblem(again.status, again.headers, again.body)).toBeUndefined();
    expect(again.body).toMatchObject({ code: 'conflict', message: 'This slug is taken' });
    const other = await newOrg();
    const rename = await app.patch(`/api/am/orgs/${other.id}`, { slug: alias }, { token: am });
    expect(rename.status).toBe(409);
    expect(rename.body.code).toBe('conflict');
    expect((await app.post(`/api/am/orgs/${other.id}/slug-aliases`, { slug: alias }, { token: superadmin })).status).toBe(409);
    // ...while the slug it only held (never confirmed, so never reserved) is free again: the reservation is what keeps a slug.
    expect((await app.get(`/api/am/slug-availability?slug=${org.slug}`, { token: am })).body).toMatchObject({ available: true, reason: null });
  });

  it('never sets pending_specialist_assignment along the org lifecycle: create, assign, grant, invite, resend, complete, trial ending, suspend, recover, finish, archive', async () => {
    const orgs = app.running.app.get(OrgsService);
    const dunning = app.running.app.get(DunningService);
    const seen: string[] = [];
    const record = async (orgId: string) => {
      const status = await statusOf(orgId);
      seen.push(status);
      return status;
    };
    const specialist = (await pool())[0]!;
    const expertId = (await app.get('/api/auth/me', { token: expert })).body.id as string;

    // Invited path: create -> assign -> grant -> invite -> resend -> Phase 2.
    const invited = await newOrg();
    expect(await record(invited.id)).toBe('pending_am_setup');
    await app.post(`/api/am/orgs/${invited.id}/specialist`, { specialistId: specialist.id }, { token: am });
    expect(await record(invited.id)).toBe('pending_am_setup');
    expect((await app.post(`/api/am/orgs/${invited.id}/expert-grants`, { expertId, scope: 'org' }, { token: am })).status).toBe(201);
    expect(await record(invited.id)).toBe('pending_am_setup');
    const invite = await app.post(`/api/am/orgs/${invited.id}/invite`, {}, { token: am });
    expect(await record(invited.id)).toBe('pending_client_confirmation');
    await app.post(`/api/am/orgs/${invited.id}/invite`, {}, { token: am });
    expect(await record(invited.id)).toBe('pending_client_confirmation');
    await completePhase2(invited, tokenOf(invite.body.onboardingUrl));
    expect(await record(invited.id)).toBe('active');

    // Trial ending, payment failure -> grace elapsed -> suspended, payment -> active.
    const swept = await orgs.runLifecycleSweep(new Date(Date.now() + 25 * DAY));
    expect(swept.trialEnding).toContain(invited.id);
    expect(await record(invited.id)).toBe('trial_ending');
    expect((await billingEvent(unique('evt'), 'payment_failed', invited.id)).status).toBe(200);
    expect(await dunning.runAccessGate(new Date(Date.now() + 8 * DAY))).toEqual([invited.id]);
    expect(await record(invited.id)).toBe('suspended');
    expect((await billingEvent(unique('evt'), 'payment_succeeded', invited.id)).status).toBe(200);
    expect(await record(invited.id)).toBe('active');

    // Finished without invite; and a setup left alone until the stale archive.
    const finished = await newOrg();
    expect((await app.post(`/api/am/orgs/${finished.id}/finish`, undefined, { token: am })).status).toBe(200);
    expect(await record(finished.id)).toBe('active');
    const stale = await newOrg();
    expect(await record(stale.id)).toBe('pending_am_setup');
    expect((await orgs.runLifecycleSweep(new Date(Date.now() + 91 * DAY))).archived).toContain(stale.id);
    expect(await record(stale.id)).toBe('deactivated');

    expect(new Set(seen)).toEqual(new Set(['pending_am_setup', 'pending_client_confirmation', 'active', 'trial_ending', 'suspended', 'deactivated']));
    expect(seen).not.toContain('pending_specialist_assignment');
    expect(await rows(app.running.dbService, sql`select id from orgs where status = 'pending_specialist_assignment'`)).toEqual([]);
  });
});

describe('real-time without REDIS_URL (spec 6.1 delivery rule 4)', () => {
  const lines: string[] = [];
  let app: TestApp;
  const warnings = (text: RegExp) => lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level === 40 && text.test(l.msg));

  beforeAll(async () => {
    setLogDestination({ write: (line: string) => void lines.push(line) });
    app = await startTestApp({ redis: false, env: { LOG_LEVEL: 'info' } });
  });
  afterAll(async () => {
    await app?.close();
    setLogDestination(undefined);
  });

  it('falls back to in-memory delivery without REDIS_URL and logs a warning once', async () => {
    expect(app.env.REDIS_URL).toBeUndefined();
    const fallback = warnings(/REDIS_URL is not set/);
    expect(fallback).toHaveLength(1);
    expect(fallback[0]!.msg).toMatch(/real-time delivery are in memory \(single instance only\)/);

    // Delivery works on this one instance, in memory; the warning is not repeated per event.
    const owner = await app.login('org_admin@acme.demo.invalid', PASSWORD);
    const am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    const socket = await connectSocket(app.url, owner);
    try {
      const received = collect(socket, 'notification:new');
      const me = (await app.get('/api/auth/me', { token: owner })).body.id as string;
      for (const message of ['first', 'second']) expect((await app.post('/api/notifications', { userId: me, type: 'system', message }, { token: am })).status).toBe(201);
      await waitFor(() => received.length === 2);
      expect(received.map((r) => r.message)).toEqual(['first', 'second']);
    } finally {
      socket.close();
    }
    expect(warnings(/REDIS_URL is not set/)).toHaveLength(1);

    // With REDIS_URL (runs that have one), an instance starts without that warning.
    if (process.env.REDIS_URL) {
      const withRedis = await startTestApp({ env: { LOG_LEVEL: 'info' } });
      try {
        expect(withRedis.env.REDIS_URL).toBe(process.env.REDIS_URL);
        expect(warnings(/REDIS_URL is not set/)).toHaveLength(1);
      } finally {
        await withRedis.close();
      }
    }
  });
});
