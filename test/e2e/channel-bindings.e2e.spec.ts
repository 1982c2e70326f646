import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboundProcessor } from '../../src/modules/channels/inbound.processor.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { QueueService } from '../../src/platform/queue/queue.service.js';
import { demoCast, type DemoCast } from '../support/tenants.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startFakeVendor, type FakeVendor } from '../support/vendor.js';
import { messagingACall, verifyIntegration } from '../support/webhooks.js';

const CHAT_A_SECRET = 'bindings-chat-a-signing-secret';
const MESSAGING_A_TOKEN = 'bindings-messaging-a-auth-token';
const PUBLIC_URL = 'https://service.example.com';
const POOL_NUMBER = '+15550000001';
const CODE = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$/;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function rows<T>(query: Promise<unknown>): Promise<T[]> {
  const result = await query;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

interface EventRow {
  id: string;
  status: string;
  reason: string | null;
  org_id: string | null;
  conversation_id: string | null;
  attempts: number;
}

/**
 * Channel bindings need proof of control (API-MAP.md "Channel bindings and vendor traffic"): a new
 * binding is pending with a code; its traffic is quarantined `binding_unverified` without a turn
 * until a message through the channel carries the code or staff verify it; a value is verified for
 * one org only, and claiming one never tells who else holds it. Webhook secrets are at least 32
 * characters, and the worker survives hostile stored bodies.
 */
describe('channel bindings need proof of control', () => {
  let app: TestApp;
  let vendor: FakeVendor;
  let db: DbService;
  let cast: DemoCast;

  const event = async (channel: string, eventKey: string) =>
    (await rows<EventRow>(db.root.execute(sql`select id, status, reason, org_id, conversation_id, attempts from inbound_events where channel = ${channel} and event_key = ${eventKey}`)))[0];

  async function processed(channel: string, eventKey: string): Promise<EventRow> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const row = await event(channel, eventKey);
      if (row && row.status !== 'queued' && row.status !== 'processing') return row;
      if (Date.now() > deadline) throw new Error(`event ${channel} ${eventKey} not processed: ${JSON.stringify(row)}`);
      await sleep(100);
    }
  }

  const conversationsOf = async (orgId: string) => (await rows<{ n: number }>(db.root.execute(sql`select count(*)::int as n from conversations where org_id = ${orgId}`)))[0]!.n;

  const chatA = (team: string, eventId: string, text: string) => {
    const raw = JSON.stringify({
      type: 'event_callback',
      team_id: team,
      event_id: eventId,
      event: { type: 'message', user: 'U1', channel: 'D1', channel_type: 'im', text, ts: `${Date.now() / 1000}` },
    });
    const ts = Math.floor(Date.now() / 1000);
    const signature = `v0=${createHmac('sha256', CHAT_A_SECRET).update(`v0:${ts}:${raw}`).digest('hex')}`;
    return app.request('POST', '/api/channels/chat-a/events', {
      body: raw,
      headers: { 'content-type': 'application/json', 'x-chat-a-request-timestamp': String(ts), 'x-chat-a-signature': signature },
    });
  };
  const messagingA = (sid: string, from: string, body: string) => {
    const call = messagingACall(PUBLIC_URL, MESSAGING_A_TOKEN, { MessageSid: sid, From: from, To: POOL_NUMBER, Body: body });
    return app.request('POST', call.path, { body: call.body, headers: call.headers });
  };
  const messagingB = (secret: string, updateId: number, text: string) =>
    app.request('POST', '/api/channels/messaging-b/webhook', {
      body: JSON.stringify({ update_id: updateId, message: { message_id: updateId, chat: { id: 5, type: 'private' }, from: { id: 5, is_bot: false, first_name: 'Ann' }, text } }),
      headers: { 'content-type': 'application/json', 'x-messaging-b-secret-token': secret },
    });
  const integration = async (orgId: string, id: string) => (await app.get(`/api/orgs/${orgId}/integrations/${id}`, { token: cast.am })).body;

  beforeAll(async () => {
    vendor = await startFakeVendor();
    app = await startTestApp({
      env: {
        PUBLIC_URL,
        CHAT_A_SIGNING_SECRET: CHAT_A_SECRET,
        MESSAGING_A_AUTH_TOKEN: MESSAGING_A_TOKEN,
        MESSAGING_A_NUMBER_POOL: POOL_NUMBER,
        CHAT_A_API_BASE_URL: `${vendor.url}/chat-a`,
        MESSAGING_A_API_BASE_URL: `${vendor.url}/messaging-a`,
        MESSAGING_B_API_BASE_URL: `${vendor.url}/messaging-b`,
      },
    });
    db = app.running.app.get(DbService);
    cast = await demoCast(app);
  });
  afterAll(async () => {
    await app?.close();
    await vendor?.close();
  });

  it('starts pending with a code the org admin sees; pending traffic is quarantined binding_unverified with no turn', async () => {
    const created = await app.post(`/api/orgs/${cast.acmeId}/integrations`, { channel: 'chat-a', externalId: 'T-PENDING', config: { botUserId: 'UBOT' } }, { token: cast.owner });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ verificationStatus: 'pending', verificationCode: expect.stringMatching(CODE), pendingSources: ['T-PENDING'], verifiedAt: null });
    const listed = await app.get(`/api/orgs/${cast.acmeId}/integrations`, { token: cast.owner });
    expect(listed.body.items).toContainEqual(expect.objectContaining({ id: created.body.id, verificationStatus: 'pending', verificationCode: created.body.verificationCode }));

    const before = await conversationsOf(cast.acmeId);
    expect((await chatA('T-PENDING', 'Ev-pending-1', 'hello, anyone?')).status).toBe(200);
    expect(await processed('chat-a', 'T-PENDING:Ev-pending-1')).toMatchObject({ status: 'quarantined', reason: 'binding_unverified', org_id: cast.acmeId, conversation_id: null });
    expect(await conversationsOf(cast.acmeId)).toBe(before);
    const ops = await app.get(`/api/ops/channels/quarantine?orgId=${cast.acmeId}`, { token: cast.am });
    expect(ops.body.items).toContainEqual(expect.objectContaining({ channel: 'chat-a', reason: 'binding_unverified' }));
  });

  it('is verified by a message from the source that carries the code: that message only verifies, the next one gets a turn', async () => {
    const pending = (await app.get(`/api/orgs/${cast.acmeId}/integrations`, { token: cast.owner })).body.items.find((i: { channel: string }) => i.channel === 'chat-a');
    const before = await conversationsOf(cast.acmeId);
    // A wrong code verifies nothing.
    await chatA('T-PENDING', 'Ev-pending-2', 'my code is ZZZZZZZZ');
    expect(await processed('chat-a', 'T-PENDING:Ev-pending-2')).toMatchObject({ status: 'quarantined', reason: 'binding_unverified' });

    await chatA('T-PENDING', 'Ev-pending-3', `verification code: ${pending.verificationCode.toLowerCase()}`);
    expect(await processed('chat-a', 'T-PENDING:Ev-pending-3')).toMatchObject({ status: 'ignored', reason: 'binding_verified', org_id: cast.acmeId, conversation_id: null });
    expect(await conversationsOf(cast.acmeId)).toBe(before);
    const verified = await integration(cast.acmeId, pending.id);
    expect(verified).toMatchObject({ verificationStatus: 'verified', verificationCode: null, pendingSources: [], verifiedAt: expect.any(String) });
    const audit = await app.get(`/api/ops/audit?action=integration.verified&resourceId=${pending.id}`, { token: cast.superadmin });
    expect(audit.body.items).toContainEqual(expect.objectContaining({ action: 'integration.verified', orgId: cast.acmeId, meta: expect.objectContaining({ method: 'inbound_code' }) }));

    await chatA('T-PENDING', 'Ev-pending-4', 'what are your hours?');
    const done = await processed('chat-a', 'T-PENDING:Ev-pending-4');
    expect(done).toMatchObject({ status: 'done', org_id: cast.acmeId });

    // Changing the workspace makes it pending again, with a new code.
    const moved = await app.patch(`/api/orgs/${cast.acmeId}/integrations/${pending.id}`, { externalId: 'T-PENDING-2' }, { token: cast.owner });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ verificationStatus: 'pending', verificationCode: expect.stringMatching(CODE), pendingSources: ['T-PENDING-2'], verifiedAt: null });
    expect(moved.body.verificationCode).not.toBe(pending.verificationCode);
    // Other changes keep it verified.
    await verifyIntegration(app, cast.acmeId, pending.id, cast.am);
    const edited = await app.patch(`/api/orgs/${cast.acmeId}/integrations/${pending.id}`, { config: { botUserId: 'UBOT2' }, enabled: true }, { token: cast.owner });
    expect(edited.body).toMatchObject({ verificationStatus: 'verified', verificationCode: null });
  });

  it('lets an account manager or superadmin verify (204, audited); an org admin or another org gets 403', async () => {
    const created = await app.post(`/api/orgs/${cast.acmeId}/integrations`, { channel: 'enterprise-chat', externalId: 'TEN-STAFF' }, { token: cast.owner });
    expect(created.status).toBe(201);
    const path = `/api/orgs/${cast.acmeId}/integrations/${created.body.id}/verify`;
    for (const token of [cast.owner, cast.member, cast.aiOperator, cast.hooliOwner]) {
      const refused = await app.post(path, undefined, { token });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ statusCode: 403, code: 'forbidden' });
    }
    expect((await integration(cast.acmeId, created.body.id)).verificationStatus).toBe('pending');
    const ok = await app.post(path, undefined, { token: cast.am });
    expect(ok.status).toBe(204);
    expect(await integration(cast.acmeId, created.body.id)).toMatchObject({ verificationStatus: 'verified', verificationCode: null });
    expect((await app.post(path, undefined, { token: cast.superadmin })).status).toBe(204);
    // Another org's id for this integration is unknown there.
    expect((await app.post(`/api/orgs/${cast.hooliId}/integrations/${created.body.id}/verify`, undefined, { token: cast.am })).status).toBe(404);
    const audit = await app.get(`/api/ops/audit?action=integration.verified&resourceId=${created.body.id}`, { token: cast.superadmin });
    expect(audit.body.items).toContainEqual(expect.objectContaining({ action: 'integration.verified', orgId: cast.acmeId, meta: expect.objectContaining({ method: 'staff' }) }));
  });

  it('never reveals another holder: a duplicate claim answers 201 like any other, but only one org can verify it', async () => {
    // messaging-a numbers: acme holds and verifies one; hooli claims the same number.
    const acme = await app.post(
      `/api/orgs/${cast.acmeId}/integrations`,
      { channel: 'messaging-a', config: { whitelist: ['+15557000001', '+15557000002'] }, secrets: { accountSid: 'AC1', authToken: 'sender-token' } },
      { token: cast.owner },
    );
    expect(acme.status).toBe(201);
    const hooli = await app.post(`/api/orgs/${cast.hooliId}/integrations`, { channel: 'messaging-a', config: { whitelist: ['+15557000001'] } }, { token: cast.hooliOwner });
    expect(hooli.status).toBe(201);
    expect(Object.keys(hooli.body).sort()).toEqual(Object.keys(acme.body).sort());
    expect(hooli.body).toMatchObject({ verificationStatus: 'pending', verificationCode: expect.stringMatching(CODE), pendingSources: ['+15557000001'] });

    // Two pending claims: traffic belongs to nobody yet.
    await messagingA('SM-B-1', '+15557000001', 'hello');
    expect(await processed('messaging-a', 'SM-B-1')).toMatchObject({ status: 'quarantined', reason: 'binding_unverified', org_id: null });

    // acme proves the first number with its code (sent from that number): only that number is verified.
    await messagingA('SM-B-2', '+15557000001', `Code ${acme.body.verificationCode}`);
    expect(await processed('messaging-a', 'SM-B-2')).toMatchObject({ status: 'ignored', reason: 'binding_verified', org_id: cast.acmeId });
    expect(await integration(cast.acmeId, acme.body.id)).toMatchObject({ verificationStatus: 'pending', pendingSources: ['+15557000002'], verificationCode: acme.body.verificationCode });
    await messagingA('SM-B-3', '+15557000001', 'Can you call me?');
    expect(await processed('messaging-a', 'SM-B-3')).toMatchObject({ status: 'done', org_id: cast.acmeId });
    await messagingA('SM-B-4', '+15557000002', 'And me?');
    expect(await processed('messaging-a', 'SM-B-4')).toMatchObject({ status: 'quarantined', reason: 'binding_unverified', org_id: cast.acmeId });

    // hooli's code from that number no longer verifies anything (the code path refuses too), nor does staff.
    await messagingA('SM-B-5', '+15557000001', `Code ${hooli.body.verificationCode}`);
    expect(await processed('messaging-a', 'SM-B-5')).toMatchObject({ status: 'done', org_id: cast.acmeId });
    expect((await integration(cast.hooliId, hooli.body.id)).verificationStatus).toBe('pending');
    const conflict = await app.post(`/api/orgs/${cast.hooliId}/integrations/${hooli.body.id}/verify`, undefined, { token: cast.am });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ statusCode: 409, code: 'conflict' });
    expect((await integration(cast.hooliId, hooli.body.id)).verificationStatus).toBe('pending');

    // The second number: staff verify acme; the whole integration is verified.
    await verifyIntegration(app, cast.acmeId, acme.body.id, cast.am);
    expect(await integration(cast.acmeId, acme.body.id)).toMatchObject({ verificationStatus: 'verified', pendingSources: [] });
  });

  it('holds a messaging-b secret pending until an update carries the code', async () => {
    const secret = 'bindings-messaging-b-secret-0123456789';
    const created = await app.post(`/api/orgs/${cast.acmeId}/integrations`, { channel: 'messaging-b', secrets: { webhookSecret: secret, botToken: '1:ABC' } }, { token: cast.owner });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ verificationStatus: 'pending', pendingSources: [] });
    expect((await messagingB(secret, 1, 'hello')).status).toBe(200);
    expect(await processed('messaging-b', `${created.body.id}:1`)).toMatchObject({ status: 'quarantined', reason: 'binding_unverified', org_id: cast.acmeId });
    await messagingB(secret, 2, created.body.verificationCode);
    expect(await processed('messaging-b', `${created.body.id}:2`)).toMatchObject({ status: 'ignored', reason: 'binding_verified' });
    await messagingB(secret, 3, 'now a question');
    expect(await processed('messaging-b', `${created.body.id}:3`)).toMatchObject({ status: 'done', org_id: cast.acmeId });

    // Disabled, it routes nothing; enabled again, it is still verified.
    expect((await app.patch(`/api/orgs/${cast.acmeId}/integrations/${created.body.id}`, { enabled: false }, { token: cast.owner })).body).toMatchObject({
      enabled: false,
      verificationStatus: 'verified',
    });
    expect((await messagingB(secret, 4, 'anyone?')).status).toBe(401);
    expect((await app.patch(`/api/orgs/${cast.acmeId}/integrations/${created.body.id}`, { enabled: true }, { token: cast.owner })).body).toMatchObject({
      enabled: true,
      verificationStatus: 'verified',
    });
    await messagingB(secret, 5, 'back again');
    expect(await processed('messaging-b', `${created.body.id}:5`)).toMatchObject({ status: 'done', org_id: cast.acmeId });
  });

  it('refuses a webhook secret shorter than 32 characters with 400 validation_failed naming the field', async () => {
    const short = await app.post(`/api/orgs/${cast.hooliId}/integrations`, { channel: 'messaging-b', secrets: { webhookSecret: 'a'.repeat(31), botToken: '1:ABC' } }, { token: cast.am });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ statusCode: 400, code: 'validation_failed', details: [expect.objectContaining({ field: 'secrets.webhookSecret' })] });
    const acmeB = (await app.get(`/api/orgs/${cast.acmeId}/integrations`, { token: cast.am })).body.items.find((i: { channel: string }) => i.channel === 'messaging-b');
    const patched = await app.patch(`/api/orgs/${cast.acmeId}/integrations/${acmeB.id}`, { secrets: { webhookSecret: 'short' } }, { token: cast.am });
    expect(patched.status).toBe(400);
    expect(patched.body.details).toContainEqual(expect.objectContaining({ field: 'secrets.webhookSecret' }));
    expect((await app.post(`/api/orgs/${cast.hooliId}/integrations`, { channel: 'messaging-b', secrets: { webhookSecret: 'a'.repeat(32) } }, { token: cast.am })).status).toBe(201);
  });

  it('ends a stored body nested deeper than 64 levels, or otherwise hostile, quarantined without a retry, and goes on', async () => {
    const processor = app.running.app.get(InboundProcessor);
    const deep = (n: number) => `{"a":${'['.repeat(n)}${']'.repeat(n)}}`;
    const hostile: Array<[string, string]> = [
      ['chat-a', `{"type":"event_callback","team_id":"T-PENDING-2","event":${'{"e":'.repeat(100_000)}1${'}'.repeat(100_000)}}`],
      ['enterprise-chat', deep(65)],
      ['messaging-b', `[${deep(200_000)}]`],
      ['email', deep(10_000)],
      ['chat-a', '{"team_id": "T-PENDING-2", "event": '],
      ['chat-a', 'null'],
      ['enterprise-chat', '{"type":"message","conversation":{"id":"c","tenantId":"TEN-STAFF"},"id":"x","entities":"not-a-list"}'],
    ];
    const ids: string[] = [];
    for (const [i, [channel, body]] of hostile.entries()) {
      const [row] = await rows<{ id: string }>(db.root.execute(sql`insert into inbound_events (channel, event_key, body, meta) values (${channel}, ${`hostile-${i}`}, ${body}, '{}') returning id`));
      ids.push(row!.id);
    }
    for (const id of ids) await processor.process(id, false);
    const ended = await rows<{ status: string; reason: string | null; attempts: number }>(
      db.root.execute(
        sql`select status, reason, attempts from inbound_events where id in (${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )})`,
      ),
    );
    expect(ended).toHaveLength(hostile.length);
    for (const row of ended) expect(row).toEqual({ status: 'quarantined', reason: 'malformed_body', attempts: 1 });

    // Through the queue as well: the worker ends it once and keeps taking events.
    const [queued] = await rows<{ id: string }>(db.root.execute(sql`insert into inbound_events (channel, event_key, body) values ('chat-a', 'hostile-queued', ${deep(100_000)}) returning id`));
    await app.running.app.get(QueueService).send('channels.inbound', { eventId: queued!.id });
    expect(await processed('chat-a', 'hostile-queued')).toMatchObject({ status: 'quarantined', reason: 'malformed_body', attempts: 1 });
    await chatA('T-PENDING-2', 'Ev-after-hostile', 'still answering?');
    expect(await processed('chat-a', 'T-PENDING-2:Ev-after-hostile')).toMatchObject({ status: 'done', org_id: cast.acmeId });
  });
});
