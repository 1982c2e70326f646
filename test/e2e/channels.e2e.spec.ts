import { createHmac, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboundProcessor } from '../../src/modules/channels/inbound.processor.js';
import { OutboundService } from '../../src/modules/channels/outbound.service.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { jobScope } from '../../src/platform/tenancy/org-scope.js';
import { eventually, sleep } from '../support/inbound.js';
import { resultRows } from '../support/rows.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { enterpriseChatEnv, startFakeVendor, type FakeVendor } from '../support/vendor.js';
import { POOL_ACCOUNT_SID, connectVerified, verifyIntegration } from '../support/webhooks.js';

const PASSWORD = 'demo1234';
const CHAT_A_SECRET = 'chat-a-signing-secret';
const MESSAGING_A_TOKEN = 'messaging-a-auth-token';
const EMAIL_SECRET = 'email-signing-secret';
const POOL_NUMBER = '+15550000001';
const CLIENT_NUMBER = '+15557654321';
const PUBLIC_URL = 'https://service.example.com';
const ALIAS = 'emilie.acme@workspace.example.com';
const MB_SECRET = 'mb-webhook-secret-0123456789abcdef';

const rows = async <T>(query: Promise<unknown>): Promise<T[]> => resultRows<T>(await query);

describe('inbound channels (spec 4.8, 5.6, 6.1.5, 7.1)', () => {
  let app: TestApp;
  let vendor: FakeVendor;
  let db: DbService;
  let am: string;
  let acmeId: string;

  const event = async (channel: string, eventKey: string) =>
    (
      await rows<{ status: string; reason: string | null; conversation_id: string | null; org_id: string | null }>(
        db.root.execute(sql`select status, reason, conversation_id, org_id from inbound_events where channel = ${channel} and event_key = ${eventKey}`),
      )
    )[0];

  /** Waits until the worker has finished with an event. */
  async function processed(channel: string, eventKey: string) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const row = await event(channel, eventKey);
      if (row && row.status !== 'queued' && row.status !== 'processing') return row;
      if (Date.now() > deadline) throw new Error(`event ${channel} ${eventKey} not processed: ${JSON.stringify(row)}`);
      await sleep(100);
    }
  }

  async function messagesOf(conversationId: string) {
    return rows<{ id: string; role: string; content: string }>(
      db.root.execute(sql`select id, role, content from conversation_messages where conversation_id = ${conversationId} order by created_at, id`),
    );
  }

  async function waitForSends(pathPart: string, count: number) {
    const deadline = Date.now() + 15_000;
    while (vendor.sends(pathPart).length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} sends to ${pathPart}, got ${vendor.sends(pathPart).length}`);
      await sleep(100);
    }
  }

  beforeAll(async () => {
    vendor = await startFakeVendor();
    app = await startTestApp({
      env: {
        PUBLIC_URL,
        CHAT_A_SIGNING_SECRET: CHAT_A_SECRET,
        MESSAGING_A_AUTH_TOKEN: MESSAGING_A_TOKEN,
        MESSAGING_A_NUMBER_POOL: `${POOL_NUMBER},+15550000002`,
        EMAIL_INBOUND_SIGNING_SECRET: EMAIL_SECRET,
        ...enterpriseChatEnv(vendor),
        CHAT_A_API_BASE_URL: `${vendor.url}/chat-a`,
        MESSAGING_A_API_BASE_URL: `${vendor.url}/messaging-a`,
        MESSAGING_B_API_BASE_URL: `${vendor.url}/messaging-b`,
        // Long enough that a loaded machine still reads the breaker open before it half-opens.
        CHANNEL_BREAKER_RESET_MS: '4000',
        ATTACHMENT_HOSTS: `files.example.com,${new URL(vendor.url).host}`,
      },
    });
    db = app.running.app.get(DbService);
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    acmeId = (await app.get('/api/auth/me', { token: await app.login('client@acme.demo.invalid', PASSWORD) })).body.orgMemberships[0].orgId;
  });
  afterAll(async () => {
    await app?.close();
    await vendor?.close();
  });

  describe('integrations', () => {
    it('stores secrets sealed and never returns them; a binding is verified for one org only; roles are enforced', async () => {
      const created = await app.post(
        `/api/orgs/${acmeId}/integrations`,
        { channel: 'chat-a', externalId: 'T-ACME', config: { botUserId: 'UBOT' }, secrets: { botToken: 'xoxb-very-secret' } },
        { token: am },
      );
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ channel: 'chat-a', externalId: 'T-ACME', secretNames: ['botToken'], enabled: true });
      expect(JSON.stringify(created.body)).not.toContain('xoxb-very-secret');
      const [stored] = await rows<{ secrets_sealed: string; secrets_key_id: string }>(db.root.execute(sql`select secrets_sealed, secrets_key_id from org_integrations where id = ${created.body.id}`));
      expect(stored!.secrets_sealed).not.toContain('xoxb');
      expect(stored!.secrets_sealed.startsWith(`v1.${stored!.secrets_key_id}.`)).toBe(true);
      expect((await app.get(`/api/orgs/${acmeId}/integrations/${created.body.id}`, { token: am })).body.secretNames).toEqual(['botToken']);
      await verifyIntegration(app, acmeId, created.body.id, am);

      // Another org may claim the same workspace (nothing reveals who holds it), but never verify it.
      const other = await app.post(
        '/api/am/orgs',
        {
          legalName: 'Binder Inc',
          slug: 'binder',
          industry: 'technology',
          corporateDomains: ['binder.example.com'],
          adminEmail: 'a@binder.example.com',
          website: 'https://binder.example.com',
          timezone: 'Europe/Paris',
        },
        { token: am },
      );
      const claim = await app.post(`/api/orgs/${other.body.id}/integrations`, { channel: 'chat-a', externalId: 'T-ACME' }, { token: am });
      expect(claim.status).toBe(201);
      expect(claim.body).toMatchObject({ verificationStatus: 'pending', verificationCode: expect.stringMatching(/^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$/) });
      expect((await app.post(`/api/orgs/${other.body.id}/integrations/${claim.body.id}/verify`, undefined, { token: am })).status).toBe(409);
      expect((await app.post(`/api/orgs/${acmeId}/integrations`, { channel: 'chat-a', externalId: 'T-OTHER' }, { token: am })).status).toBe(409);

      const member = await app.login('client@acme.demo.invalid', PASSWORD);
      const owner = await app.login('org_admin@acme.demo.invalid', PASSWORD);
      expect((await app.get(`/api/orgs/${acmeId}/integrations`, { token: member })).status).toBe(403);
      expect((await app.get(`/api/orgs/${acmeId}/integrations`, { token: owner })).status).toBe(200);
      expect((await app.get(`/api/orgs/${other.body.id}/integrations`, { token: owner })).status).toBe(404);

      const urls = await app.get(`/api/orgs/${acmeId}/channels/webhook-urls`, { token: owner });
      expect(urls.body['chat-a']).toEqual([`${PUBLIC_URL}/api/channels/chat-a/events`]);
      expect(urls.body['enterprise-chat']).toHaveLength(2);
    });
  });

  describe('chat-a', () => {
    const signed = (body: unknown, ts = Math.floor(Date.now() / 1000), secret = CHAT_A_SECRET) => {
      const raw = JSON.stringify(body);
      const signature = `v0=${createHmac('sha256', secret).update(`v0:${ts}:${raw}`).digest('hex')}`;
      return { raw, headers: { 'content-type': 'application/json', 'x-chat-a-request-timestamp': String(ts), 'x-chat-a-signature': signature } };
    };
    const post = (body: unknown, ts?: number, secret?: string) => {
      const s = signed(body, ts, secret);
      return app.request('POST', '/api/channels/chat-a/events', { body: s.raw, headers: s.headers });
    };
    const message = (eventId: string, event: Record<string, unknown>, team = 'T-ACME') => ({
      type: 'event_callback',
      team_id: team,
      event_id: eventId,
      event: { type: 'message', user: 'U1', channel: 'C1', channel_type: 'channel', ...event },
    });

    it('answers url_verification, and refuses unsigned, wrongly signed and stale calls with 401', async () => {
      expect((await post({ type: 'url_verification', challenge: 'abc123' })).body).toEqual({ challenge: 'abc123' });
      const body = message('Ev-unsigned', { text: 'hi', ts: '100.1' });
      expect((await app.request('POST', '/api/channels/chat-a/events', { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })).status).toBe(401);
      expect((await post(body, undefined, 'wrong-secret')).status).toBe(401);
      const stale = await post(body, Math.floor(Date.now() / 1000) - 301);
      expect(stale.status).toBe(401);
      expect(stale.body).toMatchObject({ statusCode: 401, code: 'unauthorized' });
      expect(await event('chat-a', 'T-ACME:Ev-unsigned')).toBeUndefined();
    });

    it('runs one turn for a mention, sends the reply once into the thread, and ignores a redelivery', async () => {
      const body = message('Ev-1', { type: 'app_mention', text: '<@UBOT> what are your hours?', ts: '200.1' });
      expect((await post(body)).status).toBe(200);
      expect((await post(body)).body).toMatchObject({ ok: true, duplicate: true });
      const done = await processed('chat-a', 'T-ACME:Ev-1');
      expect(done).toMatchObject({ status: 'done', org_id: acmeId });
      const thread = await messagesOf(done.conversation_id!);
      expect(thread.map((m) => m.role)).toEqual(['client', 'specialist']);
      expect(thread[0]!.content).toBe('what are your hours?');
      await waitForSends('chat.postMessage', 1);
      await sleep(300);
      const sends = vendor.sends('chat.postMessage');
      expect(sends).toHaveLength(1);
      expect(sends[0]!.headers.authorization).toBe('Bearer xoxb-very-secret');
      expect(sends[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(sends[0]!.body)).toMatchObject({ channel: 'C1', thread_ts: '200.1', text: thread[1]!.content });
    });

    it('fetches attachments only from ATTACHMENT_HOSTS, with the bot token; a refused one leaves the message its turn and says why', async () => {
      const internal = await startFakeVendor();
      try {
        const files = [
          { name: 'report.txt', mimetype: 'text/plain', url_private: `${vendor.url}/files/report.txt` },
          { name: 'internal.txt', mimetype: 'text/plain', url_private: `${internal.url}/files/internal.txt` },
        ];
        const body = message('Ev-files', { subtype: 'file_share', channel: 'D-FILES', channel_type: 'im', text: 'two files', ts: '250.1', files });
        expect((await post(body)).status).toBe(200);
        const done = await processed('chat-a', 'T-ACME:Ev-files');
        expect(done.status).toBe('done');
        const [client] = await messagesOf(done.conversation_id!);
        expect(client!.content).toContain('two files');
        expect(client!.content).toContain('name="report.txt"');
        expect(client!.content).not.toContain('internal.txt');
        const artifacts = await rows<{ name: string }>(db.root.execute(sql`select name from conversation_artifacts where conversation_id = ${done.conversation_id}`));
        expect(artifacts.map((a) => a.name)).toEqual(['report.txt']);
        const fetched = vendor.calls.filter((c) => c.path === '/files/report.txt');
        expect(fetched).toHaveLength(1);
        expect(fetched[0]!.headers.authorization).toBe('Bearer xoxb-very-secret');
        expect(internal.calls).toHaveLength(0);
        const [why] = await rows<{ last_error: string | null }>(db.root.execute(sql`select last_error from inbound_events where channel = 'chat-a' and event_key = 'T-ACME:Ev-files'`));
        expect(why!.last_error).toContain('internal.txt: host_not_allowed');
      } finally {
        await internal.close();
      }
    });

    it('applies the engagement gate: unaddressed, engaged reply, [done], bot-authored', async () => {
      // Unaddressed in a channel with no engagement: no turn.
      await post(message('Ev-2', { text: 'just chatting', ts: '300.1' }));
      expect(await processed('chat-a', 'T-ACME:Ev-2')).toMatchObject({ status: 'ignored', reason: 'unaddressed' });
      // A reply in the engaged thread (opened by the mention above) continues it without a mention.
      await post(message('Ev-3', { text: 'and on Sundays?', ts: '200.5', thread_ts: '200.1' }));
      const engaged = await processed('chat-a', 'T-ACME:Ev-3');
      expect(engaged.status).toBe('done');
      expect(engaged.conversation_id).toBe((await event('chat-a', 'T-ACME:Ev-1'))!.conversation_id);
      // [done] completes it: the next unaddressed reply gets no turn.
      await post(message('Ev-4', { text: '[done]', ts: '200.6', thread_ts: '200.1' }));
      expect(await processed('chat-a', 'T-ACME:Ev-4')).toMatchObject({ status: 'ignored', reason: 'engagement_completed' });
      await post(message('Ev-5', { text: 'one more', ts: '200.7', thread_ts: '200.1' }));
      expect(await processed('chat-a', 'T-ACME:Ev-5')).toMatchObject({ status: 'ignored', reason: 'unaddressed' });
      // The bot's own message produces no turn.
      await post(message('Ev-6', { text: 'I am the bot', ts: '200.8', thread_ts: '200.1', bot_id: 'B1' }));
      expect(await processed('chat-a', 'T-ACME:Ev-6')).toMatchObject({ status: 'ignored', reason: 'bot_authored' });
    });

    it('quarantines a new thread of an org without a primary Specialist as no_specialist, opening no conversation', async () => {
      const demoted = await rows<{ id: string }>(db.root.execute(sql`update org_specialist_assignments set is_primary = false where org_id = ${acmeId} and is_primary returning id`));
      expect(demoted).toHaveLength(1);
      try {
        expect((await post(message('Ev-nospec', { type: 'app_mention', text: '<@UBOT> anyone there?', ts: '450.1' }))).status).toBe(200);
        expect(await processed('chat-a', 'T-ACME:Ev-nospec')).toMatchObject({ status: 'quarantined', reason: 'no_specialist', org_id: acmeId, conversation_id: null });
      } finally {
        await db.root.execute(sql`update org_specialist_assignments set is_primary = true where id = ${demoted[0]!.id}`);
      }
    });

    it('quarantines an event whose workspace is bound to no org, and lists it for ops', async () => {
      await post(message('Ev-7', { type: 'app_mention', text: '<@UBOT> hello', ts: '400.1' }, 'T-NOBODY'));
      expect(await processed('chat-a', 'T-NOBODY:Ev-7')).toMatchObject({ status: 'quarantined', reason: 'unresolved_org', conversation_id: null });
      const ops = await app.get('/api/ops/channels/quarantine', { token: am });
      expect(ops.body.items.some((e: { channel: string; reason: string; preview: string }) => e.channel === 'chat-a' && e.reason === 'unresolved_org' && e.preview.includes('T-NOBODY'))).toBe(true);
      expect((await app.get('/api/ops/channels/quarantine', { token: await app.login('client@acme.demo.invalid', PASSWORD) })).status).toBe(403);
    });
  });

  describe('messaging-a', () => {
    const signature = (params: Record<string, string>) =>
      createHmac('sha1', MESSAGING_A_TOKEN)
        .update(
          Object.keys(params)
            .sort()
            .reduce((acc, k) => acc + k + params[k], `${PUBLIC_URL}/api/channels/messaging-a/inbound`),
        )
        .digest('base64');
    const post = (given: Record<string, string>, sig?: string) => {
      const params = { AccountSid: POOL_ACCOUNT_SID, ...given };
      return app.request('POST', '/api/channels/messaging-a/inbound', {
        body: new URLSearchParams(params).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-messaging-a-signature': sig ?? signature(params) },
      });
    };

    beforeAll(async () => {
      await connectVerified(app, acmeId, { channel: 'messaging-a', config: { whitelist: [CLIENT_NUMBER] }, secrets: { accountSid: 'AC123', authToken: 'sender-token' } }, am);
    });

    it('verifies the signature and the pool, answers from a whitelisted number, and truncates the reply to 4096', async () => {
      const params = { MessageSid: 'SM-1', From: CLIENT_NUMBER, To: POOL_NUMBER, Body: 'Please call me back' };
      expect((await post(params, 'bad-signature')).status).toBe(401);
      expect((await post({ ...params, To: '+15559999999' })).status).toBe(401);
      const accepted = await post(params);
      expect(accepted.status).toBe(200);
      // The vendor's webhook contract: an empty TwiML document as text/xml (JSON is its error 12300).
      expect(accepted.headers.get('content-type')).toMatch(/^text\/xml\b/);
      expect(accepted.body).toBe('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
      // A redelivery is answered the same way.
      expect((await post(params)).body).toBe('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
      const done = await processed('messaging-a', 'SM-1');
      expect(done.status).toBe('done');
      await waitForSends('/Messages.json', 1);
      const sent = vendor.sends('/Messages.json')[0]!;
      // A message to a pool number is the platform's account's: its SID and token send the reply.
      expect(sent.path).toBe(`/messaging-a/Accounts/${POOL_ACCOUNT_SID}/Messages.json`);
      expect(sent.headers.authorization).toBe(`Basic ${Buffer.from(`${POOL_ACCOUNT_SID}:${MESSAGING_A_TOKEN}`).toString('base64')}`);
      const form = new URLSearchParams(sent.body);
      expect(form.get('To')).toBe(CLIENT_NUMBER);
      expect(form.get('From')).toBe(POOL_NUMBER);
      expect(form.get('Body')!.length).toBeLessThanOrEqual(4096);
    });

    it('quarantines an unknown sender, and creates no conversation for a deactivated org', async () => {
      await post({ MessageSid: 'SM-2', From: '+15551112222', To: POOL_NUMBER, Body: 'who am I' });
      expect(await processed('messaging-a', 'SM-2')).toMatchObject({ status: 'quarantined', reason: 'unresolved_org' });
      await db.root.execute(sql`update orgs set status = 'deactivated' where id = ${acmeId}`);
      try {
        const before = await rows(db.root.execute(sql`select id from conversations where org_id = ${acmeId}`));
        await post({ MessageSid: 'SM-3', From: CLIENT_NUMBER, To: POOL_NUMBER, Body: 'still there?' });
        expect(await processed('messaging-a', 'SM-3')).toMatchObject({ status: 'quarantined', reason: 'org_inactive' });
        expect(await rows(db.root.execute(sql`select id from conversations where org_id = ${acmeId}`))).toHaveLength(before.length);
      } finally {
        await db.root.execute(sql`update orgs set status = 'active' where id = ${acmeId}`);
      }
    });
  });

  describe('messaging-b', () => {
    beforeAll(async () => {
      await connectVerified(app, acmeId, { channel: 'messaging-b', config: { botUsername: 'acme_bot' }, secrets: { webhookSecret: MB_SECRET, botToken: '123:ABC' } }, am);
    });
    const post = (update: unknown, secret?: string) =>
      app.request('POST', '/api/channels/messaging-b/webhook', {
        body: JSON.stringify(update),
        headers: { 'content-type': 'application/json', ...(secret ? { 'x-messaging-b-secret-token': secret } : {}) },
      });

    it('accepts the integration secret only, and replies in the chat', async () => {
      const update = { update_id: 1001, message: { message_id: 7, chat: { id: 42, type: 'private' }, from: { id: 42, is_bot: false, first_name: 'Ann' }, text: 'Hello there' } };
      expect((await post(update)).status).toBe(401);
      expect((await post(update, MB_SECRET.slice(0, -1) + 'X')).status).toBe(401);
      expect((await post(update, MB_SECRET)).status).toBe(200);
      const integration = (await rows<{ id: string }>(db.root.execute(sql`select id from org_integrations where org_id = ${acmeId} and channel = 'messaging-b'`)))[0]!;
      expect(await processed('messaging-b', `${integration.id}:1001`)).toMatchObject({ status: 'done' });
      await waitForSends('/sendMessage', 1);
      const sent = vendor.sends('/sendMessage')[0]!;
      expect(sent.path).toBe('/messaging-b/bot123:ABC/sendMessage');
      expect(JSON.parse(sent.body)).toMatchObject({ chat_id: '42', reply_parameters: { message_id: 7 } });
    });

    it('fetches a document through the Bot API getFile path into the artifacts storage', async () => {
      const update = {
        update_id: 1002,
        message: {
          message_id: 8,
          chat: { id: 43, type: 'private' },
          from: { id: 43, is_bot: false, first_name: 'Bo' },
          caption: 'my invoice',
          document: { file_id: 'DOC-1', file_name: 'invoice.txt', mime_type: 'text/plain' },
        },
      };
      expect((await post(update, MB_SECRET)).status).toBe(200);
      const integration = (await rows<{ id: string }>(db.root.execute(sql`select id from org_integrations where org_id = ${acmeId} and channel = 'messaging-b'`)))[0]!;
      const done = await processed('messaging-b', `${integration.id}:1002`);
      expect(done.status).toBe('done');
      const [artifact] = await rows<{ name: string; size: number }>(db.root.execute(sql`select name, size from conversation_artifacts where conversation_id = ${done.conversation_id}`));
      expect(artifact).toMatchObject({ name: 'invoice.txt', size: 'contents of DOC-1.txt'.length });
      expect(vendor.calls.map((c) => c.path)).toEqual(expect.arrayContaining(['/messaging-b/bot123:ABC/getFile?file_id=DOC-1', '/messaging-b/file/bot123:ABC/documents/DOC-1.txt']));
      expect((await messagesOf(done.conversation_id!))[0]!.content).toMatch(/^my invoice\n\[resource uri="artifact:\/\/[^"]+" name="invoice.txt"/);
    });
  });

  describe('email inbound', () => {
    const post = (rfc822: string, secret = EMAIL_SECRET) => {
      const raw = JSON.stringify({ rawMessage: Buffer.from(rfc822).toString('base64') });
      return app.request('POST', '/api/channels/email/inbound', {
        body: raw,
        headers: { 'content-type': 'application/json', 'x-email-signature': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}` },
      });
    };
    const mail = (messageId: string, extra = '', body = 'Hello Emilie, can you help?') =>
      [
        `From: Carol Client <carol@customer.example.com>`,
        `To: ${ALIAS}`,
        `Subject: Help needed`,
        `Message-ID: ${messageId}`,
        extra,
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        '',
        body,
        '',
      ]
        .filter((l, i) => l !== '' || i > 4)
        .join('\r\n');

    it('verifies, resolves the org by the workspace alias, replies by mail in the thread, and threads the answer back', async () => {
      expect((await post(mail('<m1@customer.example.com>'), 'wrong')).status).toBe(401);
      expect((await post(mail('<m1@customer.example.com>'))).status).toBe(200);
      const first = await processed('email', '<m1@customer.example.com>');
      expect(first).toMatchObject({ status: 'done', org_id: acmeId });
      // The reply leaves from the Specialist's address, in reply to the client's message.
      const deadline = Date.now() + 10_000;
      let outbound: Array<{ status: string; external_id: string | null }> = [];
      while (Date.now() < deadline) {
        outbound = await rows(db.root.execute(sql`select status, external_id from outbound_messages where conversation_id = ${first.conversation_id} and channel = 'email'`));
        if (outbound[0]?.status === 'sent') break;
        await sleep(100);
      }
      expect(outbound).toEqual([expect.objectContaining({ status: 'sent' })]);
      const [sentMail] = await rows<{ to: string; subject: string; from_address: string; headers: Record<string, string> }>(
        db.root.execute(sql`select "to", subject, from_address, headers from mail_outbox where from_address = ${ALIAS} order by created_at desc limit 1`),
      );
      expect(sentMail).toMatchObject({ to: 'carol@customer.example.com', subject: 'Re: Help needed', from_address: ALIAS });
      expect(sentMail!.headers['In-Reply-To']).toBe('<m1@customer.example.com>');
      // The client answers our reply: same conversation.
      await post(mail('<m2@customer.example.com>', `In-Reply-To: ${sentMail!.headers['Message-ID']}\r\nReferences: <m1@customer.example.com> ${sentMail!.headers['Message-ID']}`, 'Thanks!'));
      const second = await processed('email', '<m2@customer.example.com>');
      expect(second.conversation_id).toBe(first.conversation_id);
    });

    it('quarantines mail to a suspended mailbox and to an unknown address', async () => {
      await db.root.execute(sql`update org_specialist_assignments set mailbox_user_id = 'mbx-1', mailbox_suspended_at = now() where email_alias = ${ALIAS}`);
      try {
        await post(mail('<m3@customer.example.com>'));
        expect(await processed('email', '<m3@customer.example.com>')).toMatchObject({ status: 'quarantined', reason: 'mailbox_suspended' });
        // Outbound mail stops too: an Expert's follow-up on the mail thread is held, not sent.
        const thread = (await event('email', '<m1@customer.example.com>'))!.conversation_id!;
        const expert = await app.login('expert@platform.demo.invalid', PASSWORD);
        const followUp = await app.post(`/api/conversations/${thread}/messages`, { content: 'Held while suspended' }, { token: expert });
        expect(followUp.status).toBe(201);
        const [held] = await rows<{ status: string }>(db.root.execute(sql`select status from outbound_messages where message_id = ${followUp.body.id}`));
        expect(held).toEqual({ status: 'held' });
        await sleep(300);
        expect(await rows(db.root.execute(sql`select id from mail_outbox where text = 'Held while suspended'`))).toEqual([]);
      } finally {
        await db.root.execute(sql`update org_specialist_assignments set mailbox_suspended_at = null where email_alias = ${ALIAS}`);
      }
      await post(mail('<m4@customer.example.com>').replace(`To: ${ALIAS}`, 'To: nobody@workspace.example.com'));
      expect(await processed('email', '<m4@customer.example.com>')).toMatchObject({ status: 'quarantined', reason: 'unresolved_org' });
    });
  });

  describe('enterprise-chat', () => {
    let conversations: string[] = [];
    const activity = (over: Record<string, unknown> = {}) => ({
      type: 'message',
      id: randomUUID(),
      serviceUrl: `${vendor.url}/ec`,
      text: 'hello',
      from: { id: 'user-1', name: 'Uma' },
      recipient: { id: 'bot-1', name: 'Acme Bot' },
      conversation: { id: 'personal-conv-1', conversationType: 'personal', tenantId: 'TEN-ACME' },
      ...over,
    });
    const post = async (body: Record<string, unknown>, token?: string, path = 'webhook') =>
      app.request('POST', `/api/channels/enterprise-chat/${path}`, {
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) },
      });
    const keyOf = (a: { conversation: { id: string }; id: string }) => `${a.conversation.id}:${a.id}`;

    beforeAll(async () => {
      await connectVerified(app, acmeId, { channel: 'enterprise-chat', externalId: 'TEN-ACME' }, am);
    });

    it('validates the bearer JWT (spec 5.6): audience, issuer compared exactly, expiry with 5 minutes of skew', async () => {
      const a = activity();
      expect((await post(a)).status).toBe(401);
      expect((await post(a, 'not-a-jwt')).status).toBe(401);
      expect((await post(a, await vendor.token({ aud: 'another-app' }))).status).toBe(401);
      expect((await post(a, await vendor.token({ iss: 'https://evil.test/' }))).status).toBe(401);
      // An issuer that merely starts with an allowed one is another issuer.
      expect((await post(a, await vendor.token({ iss: 'https://issuer.test/tenant' }))).status).toBe(401);
      expect((await post(a, await vendor.token({ iss: 'https://issuer.test/.evil.test' }))).status).toBe(401);
      const now = Math.floor(Date.now() / 1000);
      expect((await post(a, await vendor.token({ expiresIn: now - 400 }))).status).toBe(401);
      expect((await post(a, await vendor.token({ expiresIn: now - 200 }))).status).toBe(200);
      expect((await processed('enterprise-chat', keyOf(a))).status).toBe('done');
    });

    it('refuses a token replayed for another serviceUrl (API-MAP "Channel bindings and vendor traffic"): 401, nothing kept, that host never called', async () => {
      const attacker = await startFakeVendor();
      try {
        const token = await vendor.token();
        const replayed = activity({ serviceUrl: `${attacker.url}/ec`, text: 'reply to me instead' });
        expect((await post(replayed, token)).status).toBe(401);
        const claimsAttacker = activity({ text: 'claim points elsewhere' });
        expect((await post(claimsAttacker, await vendor.token({ serviceurl: `${attacker.url}/ec` }))).status).toBe(401);
        const noClaim = activity({ text: 'no serviceurl claim' });
        expect((await post(noClaim, await vendor.token({ serviceurl: undefined }))).status).toBe(401);
        for (const a of [replayed, claimsAttacker, noClaim]) expect(await event('enterprise-chat', keyOf(a))).toBeUndefined();
        // The same activity with its own serviceUrl is accepted and answered there.
        const honest = activity({ conversation: { id: 'personal-conv-honest', conversationType: 'personal', tenantId: 'TEN-ACME' }, text: 'honest question' });
        expect((await post(honest, token)).status).toBe(200);
        expect((await processed('enterprise-chat', keyOf(honest))).status).toBe('done');
        const deadline = Date.now() + 15_000;
        while (!vendor.sends('/v3/conversations/').some((c) => c.path.includes('personal-conv-honest'))) {
          if (Date.now() > deadline) throw new Error('no reply to the honest activity');
          await sleep(100);
        }
        expect(vendor.sends('/v3/conversations/').find((c) => c.path.includes('personal-conv-honest'))!.path).toMatch(/^\/ec\/v3\/conversations\//);
        expect(attacker.calls).toHaveLength(0);
      } finally {
        await attacker.close();
      }
    });

    it('routes per thread: a personal chat, two threads of one channel as two sessions, engagement and its end', async () => {
      const token = await vendor.token();
      const mention = { entities: [{ type: 'mention', mentioned: { id: 'bot-1' }, text: '<at>Acme Bot</at>' }] };
      const inThread = (root: string, over: Record<string, unknown>) =>
        activity({ conversation: { id: `19:chan@thread;messageid=${root}`, conversationType: 'channel', tenantId: 'TEN-ACME' }, ...over });
      const a1 = inThread('111', { text: '<at>Acme Bot</at> first topic', ...mention });
      const b1 = inThread('222', { text: '<at>Acme Bot</at> second topic', ...mention });
      const a2 = inThread('111', { text: 'more on the first' });
      const c1 = inThread('333', { text: 'nobody asked the bot' });
      for (const a of [a1, b1]) expect((await post(a, token, 'messages')).status).toBe(200);
      const [ra1, rb1] = [await processed('enterprise-chat', keyOf(a1)), await processed('enterprise-chat', keyOf(b1))];
      expect(ra1.status).toBe('done');
      expect(rb1.status).toBe('done');
      expect(ra1.conversation_id).not.toBe(rb1.conversation_id);
      const stripped = await messagesOf(ra1.conversation_id!);
      expect(stripped[0]!.content).toBe('first topic');
      await post(a2, token);
      const ra2 = await processed('enterprise-chat', keyOf(a2));
      expect(ra2).toMatchObject({ status: 'done', conversation_id: ra1.conversation_id });
      await post(c1, token);
      expect(await processed('enterprise-chat', keyOf(c1))).toMatchObject({ status: 'ignored', reason: 'unaddressed' });
      const done = inThread('111', { text: '[done]' });
      await post(done, token);
      expect(await processed('enterprise-chat', keyOf(done))).toMatchObject({ status: 'ignored', reason: 'engagement_completed' });
      const after = inThread('111', { text: 'still there?' });
      await post(after, token);
      expect(await processed('enterprise-chat', keyOf(after))).toMatchObject({ status: 'ignored', reason: 'unaddressed' });
      conversations = [ra1.conversation_id!, rb1.conversation_id!];
    });

    it('gives no turn to the bot itself, to unsupported activities, or twice to a redelivery; quarantines an unbound tenant', async () => {
      const token = await vendor.token();
      const own = activity({ from: { id: 'bot-1', name: 'Acme Bot' }, text: 'my own reply' });
      await post(own, token);
      expect(await processed('enterprise-chat', keyOf(own))).toMatchObject({ status: 'ignored', reason: 'bot_authored' });
      const update = activity({ type: 'conversationUpdate' });
      await post(update, token);
      expect(await processed('enterprise-chat', keyOf(update))).toMatchObject({ status: 'ignored', reason: 'unsupported_activity' });
      const dm = activity({ text: 'one question' });
      await post(dm, token);
      await post(dm, token);
      const r = await processed('enterprise-chat', keyOf(dm));
      const thread = await messagesOf(r.conversation_id!);
      expect(thread.filter((m) => m.content === 'one question')).toHaveLength(1);
      const stranger = activity({ conversation: { id: 'x', conversationType: 'personal', tenantId: 'TEN-UNKNOWN' } });
      await post(stranger, token);
      expect(await processed('enterprise-chat', keyOf(stranger))).toMatchObject({ status: 'quarantined', reason: 'unresolved_org' });
    });

    it('stores attachments with the conversation and passes them as resource blocks', async () => {
      const token = await vendor.token();
      const withFile = activity({
        conversation: { id: 'personal-conv-2', conversationType: 'personal', tenantId: 'TEN-ACME' },
        text: 'see the file',
        attachments: [{ contentType: 'text/plain', contentUrl: `${vendor.url}/files/notes.txt`, name: 'notes.txt' }],
      });
      await post(withFile, token);
      const r = await processed('enterprise-chat', keyOf(withFile));
      const [artifact] = await rows<{ id: string; name: string; size: number }>(db.root.execute(sql`select id, name, size from conversation_artifacts where conversation_id = ${r.conversation_id}`));
      expect(artifact).toMatchObject({ name: 'notes.txt', size: 'contents of notes.txt'.length });
      const [client] = await messagesOf(r.conversation_id!);
      expect(client!.content).toContain(`[resource uri="artifact://${artifact!.id}" name="notes.txt" mimeType="text/plain"`);
      expect(client!.content).not.toContain(Buffer.from('contents of notes.txt').toString('base64'));
      // On the verified serviceUrl's host, the attachment is fetched with the connector token.
      expect(vendor.calls.find((c) => c.path === '/files/notes.txt')!.headers.authorization).toBe('Bearer vendor-access-token');
    });

    it('replies through the connector with one cached client-credentials token', async () => {
      await waitForSends('/v3/conversations/', 4);
      const replies = vendor.sends('/v3/conversations/');
      expect(replies.every((c) => c.headers.authorization === 'Bearer vendor-access-token')).toBe(true);
      expect(replies.every((c) => c.path.startsWith('/ec/v3/conversations/'))).toBe(true);
      expect(vendor.sends('/token')).toHaveLength(1);
      expect(replies.some((c) => c.path.includes(encodeURIComponent('19:chan@thread;messageid=111')))).toBe(true);
      expect(conversations).toHaveLength(2);
    });
  });

  describe('outbound exactly once, and the circuit breaker', () => {
    it('sends a reply once under concurrent retried dispatches and after a crash mid-send', async () => {
      const outbound = app.running.app.get(OutboundService);
      const [row] = await rows<{ id: string; message_id: string }>(db.root.execute(sql`select id, message_id from outbound_messages where channel = 'chat-a' and status = 'sent' limit 1`));
      const before = vendor.sends('chat.postMessage').length;
      // A retried job for a sent row does nothing.
      await Promise.all([outbound.dispatch(jobScope({ orgId: acmeId }), row!.id), outbound.dispatch(jobScope({ orgId: acmeId }), row!.id)]);
      // A row whose sender died mid-send (lease expired) is sent once by the sweep, however many run.
      await db.root.execute(sql`update outbound_messages set status = 'sending', claimed_until = now() - interval '1 minute', sent_at = null where id = ${row!.id}`);
      await Promise.all([outbound.dispatchDue(), outbound.dispatchDue()]);
      expect(vendor.sends('chat.postMessage').length).toBe(before + 1);
      expect((await rows<{ n: number }>(db.root.execute(sql`select count(*)::int as n from outbound_messages where message_id = ${row!.message_id}`)))[0]!.n).toBe(1);
    });

    it('opens the breaker on vendor failures, retries later, and closes again', async () => {
      const outbound = app.running.app.get(OutboundService);
      const owner = await app.login('org_admin@acme.demo.invalid', PASSWORD);
      vendor.failNext = 5;
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const [c] = await rows<{ id: string }>(db.root.execute(sql`select conversation_id as id from inbound_events where channel = 'chat-a' and status = 'done' limit 1`));
        const [m] = await rows<{ id: string }>(
          db.root.execute(sql`insert into conversation_messages (conversation_id, org_id, role, content) values (${c!.id}, ${acmeId}, 'specialist', ${`reply ${i}`}) returning id`),
        );
        const [o] = await rows<{ id: string }>(
          db.root.execute(
            sql`insert into outbound_messages (org_id, conversation_id, message_id, channel, target, content) values (${acmeId}, ${c!.id}, ${m!.id}, 'chat-a', '{"channel":"C1"}', 'retry me') returning id`,
          ),
        );
        ids.push(o!.id);
      }
      const calls = vendor.sends('chat.postMessage').length;
      for (const id of ids) await outbound.dispatch(jobScope({ orgId: acmeId }), id);
      const failed = await rows<{ status: string; last_error: string | null; attempts: number }>(
        db.root.execute(
          sql`select status, last_error, attempts from outbound_messages where id in (${sql.join(
            ids.map((id) => sql`${id}`),
            sql`, `,
          )})`,
        ),
      );
      expect(failed.every((r) => r.status === 'pending')).toBe(true);
      // Each call the vendor failed is an attempt with its error; a call the open breaker refused
      // (the breaker may open before the third) reached no vendor: no attempt, no error.
      const tried = failed.filter((r) => r.attempts === 1);
      expect(tried.length).toBe(vendor.sends('chat.postMessage').length - calls);
      expect(tried.length).toBeGreaterThanOrEqual(2);
      expect(tried.every((r) => r.last_error)).toBe(true);
      expect(failed.filter((r) => r.attempts === 0).every((r) => r.last_error === null)).toBe(true);
      expect(outbound.breakerState('chat-a')).toBe('open');
      const health = await app.get(`/api/orgs/${acmeId}/channels/status`, { token: owner });
      expect(health.body.items.find((h: { channel: string }) => h.channel === 'chat-a')).toMatchObject({ breaker: 'open', connected: true, lastInboundAt: expect.any(String) });
      // After the reset timeout a trial call goes through and the breaker closes. The periodic
      // sweep (every 10 s) may be the one to make that trial, once the deferred row is due.
      vendor.failNext = 0;
      const until = Date.now() + 15_000;
      while (outbound.breakerState('chat-a') === 'open' && Date.now() < until) await sleep(100);
      expect(['half_open', 'closed']).toContain(outbound.breakerState('chat-a'));
      await db.root.execute(
        sql`update outbound_messages set next_attempt_at = now() where status = 'pending' and id in (${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )})`,
      );
      for (const id of ids) await outbound.dispatch(jobScope({ orgId: acmeId }), id);
      // If the sweep's trial was still out, the rows it refused meanwhile are sent by a later sweep.
      await eventually(
        'the breaker closed and every retried reply sent',
        async () => {
          if (outbound.breakerState('chat-a') !== 'closed') return undefined;
          const sent = await rows<{ status: string }>(
            db.root.execute(
              sql`select status from outbound_messages where id in (${sql.join(
                ids.map((id) => sql`${id}`),
                sql`, `,
              )})`,
            ),
          );
          return sent.every((r) => r.status === 'sent') || undefined;
        },
        25_000,
      );
      expect(vendor.sends('chat.postMessage').length - calls - tried.length).toBe(ids.length);
    });
  });

  describe('the org message quota on channels (spec 7.1, API-MAP.md "Channels")', () => {
    it('keeps an inbound message over the quota and quarantines it with quota_exceeded', async () => {
      const small = await startTestApp({ env: { ORG_MESSAGE_QUOTA_PER_HOUR: '1', EMAIL_INBOUND_SIGNING_SECRET: EMAIL_SECRET } });
      try {
        const sdb = small.running.app.get(DbService);
        const send = (id: string) => {
          const raw = JSON.stringify({ rawMessage: Buffer.from(`From: q@b.example.com\r\nTo: ${ALIAS}\r\nMessage-ID: ${id}\r\nSubject: quota\r\n\r\nhi\r\n`).toString('base64') });
          return small.request('POST', '/api/channels/email/inbound', {
            body: raw,
            headers: { 'content-type': 'application/json', 'x-email-signature': `sha256=${createHmac('sha256', EMAIL_SECRET).update(raw).digest('hex')}` },
          });
        };
        const status = async (key: string) => {
          const deadline = Date.now() + 15_000;
          for (;;) {
            const [row] = await rows<{ status: string; reason: string | null }>(sdb.root.execute(sql`select status, reason from inbound_events where event_key = ${key}`));
            if (row && row.status !== 'queued' && row.status !== 'processing') return row;
            if (Date.now() > deadline) throw new Error(`not processed: ${key}`);
            await sleep(100);
          }
        };
        expect((await send('<q1@b.example.com>')).status).toBe(200);
        expect(await status('<q1@b.example.com>')).toEqual({ status: 'done', reason: null });
        expect((await send('<q2@b.example.com>')).status).toBe(200);
        expect(await status('<q2@b.example.com>')).toEqual({ status: 'quarantined', reason: 'quota_exceeded' });
      } finally {
        await small.close();
      }
    });
  });

  describe('backpressure (spec 7.1)', () => {
    it('answers 503 with Retry-After at the depth limit, and processes everything accepted', async () => {
      const small = await startTestApp({ env: { INBOUND_QUEUE_MAX_DEPTH: '2', EMAIL_INBOUND_SIGNING_SECRET: EMAIL_SECRET } });
      try {
        const sdb = small.running.app.get(DbService);
        // Two accepted events nobody has taken yet fill the queue.
        const held = await rows<{ id: string }>(sdb.root.execute(sql`insert into inbound_events (channel, event_key, body) values ('email', 'held-1', '{}'), ('email', 'held-2', '{}') returning id`));
        const raw = JSON.stringify({ rawMessage: Buffer.from(`From: a@b.example.com\r\nTo: ${ALIAS}\r\nMessage-ID: <bp@b.example.com>\r\n\r\nhi\r\n`).toString('base64') });
        const send = () =>
          small.request('POST', '/api/channels/email/inbound', {
            body: raw,
            headers: { 'content-type': 'application/json', 'x-email-signature': `sha256=${createHmac('sha256', EMAIL_SECRET).update(raw).digest('hex')}` },
          });
        const refused = await send();
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toBe('30');
        expect(refused.body).toEqual({ statusCode: 503, code: 'backpressure', error: 'ServiceUnavailable', message: expect.any(String) });
        // The held events are processed (they carry no mail: each ends, none is lost), then the queue takes new ones.
        const processor = small.running.app.get(InboundProcessor);
        for (const h of held) await processor.process(h.id);
        const statuses = await rows<{ status: string }>(sdb.root.execute(sql`select status from inbound_events where event_key in ('held-1', 'held-2')`));
        expect(statuses.every((s) => s.status !== 'queued' && s.status !== 'processing')).toBe(true);
        expect((await send()).status).toBe(200);
      } finally {
        await small.close();
      }
    });
  });
});
