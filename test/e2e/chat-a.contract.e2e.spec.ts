import { createHmac, randomBytes } from 'node:crypto';
import { verifySlackRequest } from '@slack/bolt';
import type { FileShareMessageEvent } from '@slack/types';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DbService } from '../../src/platform/db/db.service.js';
import * as slack from '../fixtures/vendors/slack/events.js';
import { startChatAVendor, type ChatAVendor } from '../support/chat-a-vendor.js';
import { conversationArtifacts, conversationMessages, eventually, processedEvent, sleep } from '../support/inbound.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** The signing secret of the vendor's documentation example. */
const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const BOT_TOKEN = 'xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy';
const PUBLIC_URL = 'https://service.example.com';
const PASSWORD = 'demo1234';

/**
 * Contract of chat-a (Slack Events API and web API): every request is signed as the vendor
 * documents it and the signature is checked by the vendor's own verifier (@slack/bolt) before it is
 * sent, payloads are the documented samples typed with @slack/types, and every outbound call is
 * received by a loopback stand-in that checks method, path, bearer token and body.
 */
describe('chat-a contract (Slack Events API, chat.postMessage, files)', () => {
  let app: TestApp;
  let vendor: ChatAVendor;
  let db: DbService;
  let am: string;
  let owner: string;
  let acmeId: string;

  /** A request signed the documented way, proved by the vendor's verifier, with the neutral header names. */
  function signed(body: unknown, extra: Record<string, string> = {}) {
    const raw = JSON.stringify(body);
    const ts = Math.floor(Date.now() / 1000);
    const signature = `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${ts}:${raw}`).digest('hex')}`;
    verifySlackRequest({ signingSecret: SIGNING_SECRET, body: raw, headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': ts } });
    return { raw, headers: { 'content-type': 'application/json', 'x-chat-a-request-timestamp': String(ts), 'x-chat-a-signature': signature, ...extra } };
  }
  const post = (body: unknown, extra?: Record<string, string>) => {
    const call = signed(body, extra);
    return app.request('POST', '/api/channels/chat-a/events', { body: call.raw, headers: call.headers });
  };
  const key = (eventId: string) => `${slack.TEAM_ID}:${eventId}`;
  const postsTo = (channel: string) => vendor.posts().filter((p) => p.body.channel === channel);

  /** The one reply of a conversation, once sent, and proof that no second one follows. */
  async function oneReply(channel: string, count = 1) {
    await eventually(`${count} chat.postMessage to ${channel}`, async () => (postsTo(channel).length >= count ? true : undefined));
    await sleep(400);
    const posts = postsTo(channel);
    expect(posts).toHaveLength(count);
    return posts[count - 1]!;
  }

  /** A file_share event with its file hosted on the stand-in (the sample's URLs point at the vendor's file host). */
  function fileShareWith(ts: string, channel: string, file: { name: string; mimetype: string; bytes: Buffer }): FileShareMessageEvent {
    const [sample] = slack.fileShare.files;
    const id = `F${randomBytes(4).toString('hex').toUpperCase()}`;
    const hosted = vendor.hostFile('T061EG9R6', id, file.name, file.bytes, file.mimetype);
    return { ...slack.fileShare, ts, event_ts: ts, channel, files: [{ ...sample, id, name: file.name, title: file.name, mimetype: file.mimetype, size: file.bytes.length, ...hosted }] };
  }

  beforeAll(async () => {
    vendor = await startChatAVendor(BOT_TOKEN);
    app = await startTestApp({
      env: { PUBLIC_URL, CHAT_A_SIGNING_SECRET: SIGNING_SECRET, CHAT_A_API_BASE_URL: vendor.apiBaseUrl, ATTACHMENT_HOSTS: `files.slack.com,${vendor.host}` },
    });
    db = app.running.app.get(DbService);
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    owner = await app.login('org_admin@acme.demo.invalid', PASSWORD);
    acmeId = (await app.get('/api/auth/me', { token: owner })).body.orgMemberships[0].orgId;
  });
  afterEach(() => {
    expect(vendor.problems()).toEqual([]);
  });
  afterAll(async () => {
    await app?.close();
    await vendor?.close();
  });

  it('connects as the guide says: the request URL answers the handshake, the binding is verified by its code from the workspace', async () => {
    const urls = await app.get(`/api/orgs/${acmeId}/channels/webhook-urls`, { token: owner });
    expect(urls.body['chat-a']).toEqual([`${PUBLIC_URL}/api/channels/chat-a/events`]);
    const handshake = await post(slack.urlVerification);
    expect(handshake.status).toBe(200);
    expect(handshake.body).toEqual({ challenge: slack.urlVerification.challenge });

    const created = await app.post(
      `/api/orgs/${acmeId}/integrations`,
      { channel: 'chat-a', externalId: slack.TEAM_ID, config: { botUserId: slack.BOT_USER_ID }, secrets: { botToken: BOT_TOKEN } },
      { token: owner },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ verificationStatus: 'pending', verificationCode: expect.any(String) });
    // Before the code arrives, the workspace's traffic waits in quarantine.
    expect((await post(slack.envelope({ ...slack.directMessage, ts: '1355517500.000001', event_ts: '1355517500.000001' }, 'Ev-before-code'))).status).toBe(200);
    expect(await processedEvent(db, 'chat-a', key('Ev-before-code'))).toMatchObject({ status: 'quarantined', reason: 'binding_unverified' });
    // The customer sends the code to the bot in a direct message.
    const code = slack.envelope({ ...slack.directMessage, text: `verify ${created.body.verificationCode}`, ts: '1355517510.000002', event_ts: '1355517510.000002' }, 'Ev-code');
    expect((await post(code)).status).toBe(200);
    expect(await processedEvent(db, 'chat-a', key('Ev-code'))).toMatchObject({ status: 'ignored', reason: 'binding_verified' });
    expect((await app.get(`/api/orgs/${acmeId}/integrations/${created.body.id}`, { token: am })).body.verificationStatus).toBe('verified');
    expect(vendor.posts()).toHaveLength(0);
  });

  it('a direct message with a file gets one reply in the vendor format, and the file is kept with the conversation, byte for byte', async () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(2048)]);
    const event = fileShareWith('1529342088.000086', 'D0L4B9P0Q', { name: 'ghostrap.png', mimetype: 'image/png', bytes: png });
    expect((await post(slack.envelope(event, 'Ev-file'))).status).toBe(200);
    const done = await processedEvent(db, 'chat-a', key('Ev-file'));
    expect(done).toMatchObject({ status: 'done', org_id: acmeId, last_error: null });

    const reply = await oneReply('D0L4B9P0Q');
    const thread = await conversationMessages(db, done.conversation_id!);
    expect(thread.map((m) => m.role)).toEqual(['client', 'specialist']);
    // A direct message is answered in the conversation, not in a thread.
    expect(reply.body).toEqual({ channel: 'D0L4B9P0Q', text: thread[1]!.content });
    expect(reply.call.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);

    // The download link, with the bot token; the bytes kept are the file's.
    const [download] = vendor.downloads();
    expect(download!.path).toBe(new URL(event.files![0]!.url_private_download!).pathname);
    expect(download!.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    const [artifact] = await conversationArtifacts(app, db, done.conversation_id!);
    expect(artifact).toMatchObject({ name: 'ghostrap.png', content_type: 'image/png', size: png.length });
    expect(artifact!.bytes.equals(png)).toBe(true);
    expect(thread[0]!.content).toBe(`We got one!\n[resource uri="artifact://${artifact!.id}" name="ghostrap.png" mimeType="image/png" size="${png.length}"]`);
  });

  it('a mention delivered as app_mention and as message, and retried, is one turn with one reply in its thread; a reply in the thread continues it', async () => {
    const mention = slack.envelope(slack.appMention, 'Ev-mention');
    expect((await post(mention)).body).toEqual({ ok: true });
    expect((await post(slack.envelope(slack.channelMessageOfMention, 'Ev-mention-as-message'))).status).toBe(200);
    // The vendor retries a delivery it thinks failed: the same event id, acknowledged once.
    expect((await post(mention, { 'x-chat-a-retry-num': '1', 'x-chat-a-retry-reason': 'http_timeout' })).body).toEqual({ ok: true, duplicate: true });
    const [a, b] = [await processedEvent(db, 'chat-a', key('Ev-mention')), await processedEvent(db, 'chat-a', key('Ev-mention-as-message'))];
    expect(a.status).toBe('done');
    expect(b).toMatchObject({ status: 'done', conversation_id: a.conversation_id });
    const reply = await oneReply('C123ABC456');
    const thread = await conversationMessages(db, a.conversation_id!);
    expect(thread.map((m) => m.role)).toEqual(['client', 'specialist']);
    expect(thread[0]!.content).toBe('What is the hour of the pearl, ?');
    expect(reply.body).toEqual({ channel: 'C123ABC456', thread_ts: slack.appMention.ts, text: thread[1]!.content });

    expect((await post(slack.envelope(slack.threadReply, 'Ev-thread-reply'))).status).toBe(200);
    expect(await processedEvent(db, 'chat-a', key('Ev-thread-reply'))).toMatchObject({ status: 'done', conversation_id: a.conversation_id });
    const second = await oneReply('C123ABC456', 2);
    expect(second.body.thread_ts).toBe(slack.appMention.ts);
  });

  it('edits, deletions, other bots and unaddressed messages in private channels and group DMs get no turn', async () => {
    const before = vendor.posts().length;
    const cases: Array<[string, unknown, string]> = [
      ['Ev-changed', slack.messageChanged, 'unsupported_event'],
      ['Ev-deleted', slack.messageDeleted, 'unsupported_event'],
      ['Ev-bot', slack.botMessage, 'bot_authored'],
      ['Ev-group', slack.privateChannelMessage, 'unaddressed'],
      ['Ev-mpim', slack.groupDirectMessage, 'unaddressed'],
    ];
    for (const [id, event] of cases) expect((await post(slack.envelope(event, id))).status).toBe(200);
    for (const [id, , reason] of cases) expect(await processedEvent(db, 'chat-a', key(id))).toMatchObject({ status: 'ignored', reason });
    await sleep(300);
    expect(vendor.posts()).toHaveLength(before);
  });

  it("a token without files:read gets the file host's sign-in page: refused and not stored, the message keeps its turn and says why", async () => {
    vendor.filesRead = false;
    try {
      const event = fileShareWith('1529342200.000100', 'D0NOSCOPE', { name: 'report.pdf', mimetype: 'application/pdf', bytes: Buffer.from('%PDF-1.7 report') });
      expect((await post(slack.envelope(event, 'Ev-no-scope'))).status).toBe(200);
      const done = await processedEvent(db, 'chat-a', key('Ev-no-scope'));
      expect(done.status).toBe('done');
      expect(done.last_error).toBe('attachments not fetched: report.pdf: content_mismatch (text/html where application/pdf was expected)');
      expect(await conversationArtifacts(app, db, done.conversation_id!)).toEqual([]);
      expect((await conversationMessages(db, done.conversation_id!))[0]!.content).toBe('We got one!');
      await oneReply('D0NOSCOPE');
    } finally {
      vendor.filesRead = true;
    }
  });

  it('a Slack Connect file is looked up with files.info and the bot token, then downloaded', async () => {
    const gif = Buffer.concat([Buffer.from('GIF89a'), randomBytes(512)]);
    vendor.fileInfo.set(slack.filesInfoFile.id, { ...slack.filesInfoFile, size: gif.length, ...vendor.hostFile('T061EG9R6', slack.filesInfoFile.id, 'tedair.gif', gif, 'image/gif') });
    const event: FileShareMessageEvent = {
      ...slack.fileShare,
      ts: '1529342300.000200',
      event_ts: '1529342300.000200',
      channel: 'D0SHARED1',
      text: 'From our partner',
      files: [slack.slackConnectFile as unknown as NonNullable<FileShareMessageEvent['files']>[number]],
    };
    expect((await post(slack.envelope(event, 'Ev-connect'))).status).toBe(200);
    const done = await processedEvent(db, 'chat-a', key('Ev-connect'));
    expect(done).toMatchObject({ status: 'done', last_error: null });
    const [info] = vendor.calls.filter((c) => c.path === '/api/files.info');
    expect(info).toMatchObject({ method: 'POST', body: `file=${slack.filesInfoFile.id}` });
    expect(info!.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    const [artifact] = await conversationArtifacts(app, db, done.conversation_id!);
    expect(artifact).toMatchObject({ name: 'tedair.gif', content_type: 'image/gif', size: gif.length });
    expect(artifact!.bytes.equals(gif)).toBe(true);
    await oneReply('D0SHARED1');
  });
});
