import { createHmac, randomUUID } from 'node:crypto';
import type { ApiMethods, Update } from '@grammyjs/types';
import type { Activity } from 'botframework-schema';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboundProcessor } from '../../src/modules/channels/inbound.processor.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { FakeProvider } from '../support/llm-provider.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { enterpriseChatEnv, startFakeVendor, type FakeVendor, type VendorCall } from '../support/vendor.js';
import { connectVerified } from '../support/webhooks.js';
import { rows } from '../support/rows.js';

const PASSWORD = 'demo1234';
const MB_SECRET = 'mb-webhook-secret-0123456789abcdef-race';
const EMAIL_SECRET = 'email-signing-secret-race';
const ALIAS = 'emilie.acme@workspace.example.com';
/** The model takes this long: the second message arrives while the first one's turn runs. */
const MODEL_MS = 1500;
const GAP_MS = 100;

type SendMessage = Parameters<ApiMethods<unknown>['sendMessage']>[0];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 16, reply targeting: two client messages of one chat or conversation arrive within 0-200
 * ms, the second while the first one's turn is still running (a slow model). Each Specialist reply
 * names the message it answers. The test takes each accepted event with the real worker code as
 * a second instance would, so the two are processed at once whatever the job queue's batching.
 */
describe('reply targeting: each reply names the client message it answers', () => {
  const provider = new FakeProvider();
  let app: TestApp;
  let vendor: FakeVendor;
  let db: DbService;
  let processor: InboundProcessor;
  let am: string;
  let acmeId: string;

  async function eventId(channel: string, eventKey: string): Promise<string> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const [row] = await rows<{ id: string }>(db, sql`select id from inbound_events where channel = ${channel} and event_key = ${eventKey}`);
      if (row) return row.id;
      if (Date.now() > deadline) throw new Error(`no event ${channel} ${eventKey}`);
      await sleep(20);
    }
  }

  /** Posts the calls GAP_MS apart; each accepted event is processed at once, beside the queue's own worker. */
  async function arriveTogether(calls: Array<{ send: () => Promise<{ status: number }>; channel: string; key: string }>): Promise<void> {
    const processing: Array<Promise<void>> = [];
    for (const [i, call] of calls.entries()) {
      if (i > 0) await sleep(GAP_MS);
      expect((await call.send()).status).toBe(200);
      processing.push(eventId(call.channel, call.key).then((id) => processor.process(id)));
    }
    await Promise.all(processing);
  }

  async function waitForSends(pathPart: string, count: number): Promise<VendorCall[]> {
    const deadline = Date.now() + 20_000;
    while (vendor.sends(pathPart).length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} sends to ${pathPart}, got ${vendor.sends(pathPart).length}`);
      await sleep(100);
    }
    return vendor.sends(pathPart);
  }

  beforeAll(async () => {
    provider.delayMs = MODEL_MS;
    provider.echo = true;
    const llmUrl = await provider.start();
    vendor = await startFakeVendor();
    app = await startTestApp({
      env: {
        LLM_PROVIDER: 'openai-compatible',
        LLM_BASE_URL: llmUrl,
        LLM_MODEL: 'gpt-4o-mini',
        EMAIL_INBOUND_SIGNING_SECRET: EMAIL_SECRET,
        ...enterpriseChatEnv(vendor),
        MESSAGING_B_API_BASE_URL: `${vendor.url}/messaging-b`,
      },
    });
    db = app.running.app.get(DbService);
    processor = app.running.app.get(InboundProcessor);
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    acmeId = (await app.get('/api/auth/me', { token: await app.login('client@acme.demo.invalid', PASSWORD) })).body.orgMemberships[0].orgId;
  });
  afterAll(async () => {
    await app?.close();
    await vendor?.close();
    await provider.stop();
  });

  it('messaging-b: reply_parameters.message_id is the message each reply answers', async () => {
    const integration = await connectVerified(app, acmeId, { channel: 'messaging-b', config: { botUsername: 'acme_bot' }, secrets: { webhookSecret: MB_SECRET, botToken: '777:RACE' } }, am);
    const update = (updateId: number, messageId: number, text: string): Update => ({
      update_id: updateId,
      message: { message_id: messageId, date: Math.floor(Date.now() / 1000), chat: { id: 9001, type: 'private', first_name: 'Ann' }, from: { id: 9001, is_bot: false, first_name: 'Ann' }, text },
    });
    const post = (body: Update) => () =>
      app.request('POST', '/api/channels/messaging-b/webhook', { body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-messaging-b-secret-token': MB_SECRET } });
    const first = update(5001, 31, 'first: what are your opening hours?');
    const second = update(5002, 32, 'second: and where are you?');
    await arriveTogether([
      { send: post(first), channel: 'messaging-b', key: `${integration.id}:5001` },
      { send: post(second), channel: 'messaging-b', key: `${integration.id}:5002` },
    ]);
    const sends = (await waitForSends('/bot777:RACE/sendMessage', 2)).map((c) => JSON.parse(c.body) as SendMessage);
    expect(sends).toHaveLength(2);
    const [conversation] = await rows<{ n: number }>(
      db,
      sql`select count(distinct conversation_id)::int as n from inbound_events where channel = 'messaging-b' and event_key in (${`${integration.id}:5001`}, ${`${integration.id}:5002`})`,
    );
    expect(conversation!.n).toBe(1);
    const answerTo = (text: string) => sends.find((s) => s.text === `Answering: ${text}`);
    expect(answerTo(first.message!.text!)).toMatchObject({ chat_id: '9001', reply_parameters: { message_id: 31 } });
    expect(answerTo(second.message!.text!)).toMatchObject({ chat_id: '9001', reply_parameters: { message_id: 32 } });
  });

  it('enterprise-chat: each reply is posted to, and names (replyToId), the activity it answers', async () => {
    await connectVerified(app, acmeId, { channel: 'enterprise-chat', externalId: 'TEN-RACE' }, am);
    const conversationId = `a:personal-race-${randomUUID()}`;
    const activity = (text: string): Partial<Activity> => ({
      type: 'message',
      id: randomUUID(),
      serviceUrl: `${vendor.url}/ec`,
      channelId: 'msteams',
      text,
      from: { id: 'user-race', name: 'Uma' },
      recipient: { id: 'bot-1', name: 'Acme Bot' },
      conversation: { id: conversationId, conversationType: 'personal', tenantId: 'TEN-RACE', isGroup: false, name: '' },
    });
    const token = await vendor.token();
    const post = (body: Partial<Activity>) => () =>
      app.request('POST', '/api/channels/enterprise-chat/messages', { body: JSON.stringify(body), headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } });
    const first = activity('first: can you check my invoice?');
    const second = activity('second: it is number 42');
    await arriveTogether([
      { send: post(first), channel: 'enterprise-chat', key: `${conversationId}:${first.id}` },
      { send: post(second), channel: 'enterprise-chat', key: `${conversationId}:${second.id}` },
    ]);
    const sends = (await waitForSends(`/v3/conversations/${encodeURIComponent(conversationId)}/`, 2)).map((c) => ({ path: c.path, body: JSON.parse(c.body) as Partial<Activity> }));
    expect(sends).toHaveLength(2);
    for (const answered of [first, second]) {
      const reply = sends.find((s) => s.body.text === `Answering: ${answered.text}`);
      expect(reply?.path).toBe(`/ec/v3/conversations/${encodeURIComponent(conversationId)}/activities/${answered.id}`);
      expect(reply?.body).toMatchObject({ type: 'message', replyToId: answered.id });
    }
  });

  it('email: each reply is In-Reply-To the mail it answers; a reply naming only our answer threads in; a follow-up answers the latest', async () => {
    const post = (rfc822: string) => () => {
      const raw = JSON.stringify({ rawMessage: Buffer.from(rfc822).toString('base64') });
      return app.request('POST', '/api/channels/email/inbound', {
        body: raw,
        headers: { 'content-type': 'application/json', 'x-email-signature': `sha256=${createHmac('sha256', EMAIL_SECRET).update(raw).digest('hex')}` },
      });
    };
    const mail = (messageId: string, body: string, headers: string[] = []) =>
      [
        `From: Carol Client <carol@race.example.com>`,
        `To: ${ALIAS}`,
        'Subject: Re: RE: Invoice question',
        `Message-ID: ${messageId}`,
        ...headers,
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        '',
        body,
        '',
      ].join('\r\n');
    type Sent = { text: string; subject: string; to: string; from_address: string; headers: Record<string, string> };
    const sentMail = async (count: number) => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const sent = await rows<Sent>(db, sql`select text, subject, "to", from_address, headers from mail_outbox where "to" = 'carol@race.example.com' order by created_at`);
        if (sent.length >= count) return sent;
        if (Date.now() > deadline) throw new Error(`expected ${count} mails, got ${sent.length}`);
        await sleep(100);
      }
    };

    await arriveTogether([{ send: post(mail('<r1@race.example.com>', 'first mail')), channel: 'email', key: '<r1@race.example.com>' }]);
    const [answer] = await sentMail(1);
    expect(answer!.headers).toMatchObject({ 'In-Reply-To': '<r1@race.example.com>', References: '<r1@race.example.com>' });
    const ours = answer!.headers['Message-ID']!;
    expect(ours).toMatch(/^<[0-9a-f-]{36}@workspace\.example\.com>$/);

    // Two answers to our reply, naming only it, 100 ms apart while the model is slow.
    await arriveTogether([
      { send: post(mail('<r2@race.example.com>', 'second mail', [`In-Reply-To: ${ours}`])), channel: 'email', key: '<r2@race.example.com>' },
      { send: post(mail('<r3@race.example.com>', 'third mail', [`In-Reply-To: ${ours}`, `References: <r1@race.example.com> ${ours}`])), channel: 'email', key: '<r3@race.example.com>' },
    ]);
    // process() returns at once when the queue's worker holds an event: wait until all three have their conversation.
    await expect
      .poll(
        async () =>
          (await rows<{ n: number }>(db, sql`select count(*)::int as n from inbound_events where channel = 'email' and event_key like '<r_@race.example.com>' and conversation_id is not null`))[0]!.n,
        { timeout: 20_000 },
      )
      .toBe(3);
    const conversations = await rows<{ conversation_id: string }>(db, sql`select distinct conversation_id from inbound_events where channel = 'email' and event_key like '<r_@race.example.com>'`);
    expect(conversations).toHaveLength(1);
    const sent = await sentMail(3);
    const replyTo = (text: string) => sent.find((m) => m.text.includes(`Answering: ${text}`));
    // No References on the client's mail: its In-Reply-To stands in (RFC 5322 3.6.4).
    expect(replyTo('second mail')?.headers).toMatchObject({ 'In-Reply-To': '<r2@race.example.com>', References: `${ours} <r2@race.example.com>` });
    expect(replyTo('third mail')?.headers).toMatchObject({ 'In-Reply-To': '<r3@race.example.com>', References: `<r1@race.example.com> ${ours} <r3@race.example.com>` });
    for (const m of sent) expect(m).toMatchObject({ subject: 'Re: Invoice question', to: 'carol@race.example.com', from_address: ALIAS });

    // An Expert's follow-up answers no particular mail: it goes in reply to the latest one.
    const expert = await app.login('expert@platform.demo.invalid', PASSWORD);
    const followUp = await app.post(`/api/conversations/${conversations[0]!.conversation_id}/messages`, { content: 'A follow-up from our Expert' }, { token: expert });
    expect(followUp.status).toBe(201);
    const [, , , last] = await sentMail(4);
    expect(last).toMatchObject({ text: expect.stringContaining('A follow-up from our Expert'), subject: 'Re: Invoice question' });
    expect(last!.headers).toMatchObject({ 'In-Reply-To': '<r3@race.example.com>', References: `<r1@race.example.com> ${ours} <r3@race.example.com>` });
  });
});
