import { randomBytes } from 'node:crypto';
import type { Message, Update } from '@grammyjs/types';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MessagingBUpdate } from '../../src/modules/channels/channels.parse.js';
import { DbService } from '../../src/platform/db/db.service.js';
import * as tg from '../fixtures/vendors/telegram/updates.js';
import { conversationArtifacts, conversationMessages, eventually, processedEvent, rows, sleep } from '../support/inbound.js';
import { startMessagingBVendor, type MessagingBVendor } from '../support/messaging-b-vendor.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const WEBHOOK_SECRET = 'tg-secret-token_0123456789-ABCDEFGHIJ';
const PUBLIC_URL = 'https://service.example.com';
const PASSWORD = 'demo1234';
const PRIVATE_CHAT = '1111111';

/** The parser takes the vendor's own Update type as it is: this line stops compiling when it no longer does. */
const asParsed = (update: Update): MessagingBUpdate => update;

/**
 * Contract of messaging-b (Telegram Bot API): updates are the documented samples typed with
 * @grammyjs/types, posted with the secret token header as the vendor does (neutral name), and every
 * outbound call (getFile, file downloads, sendMessage) is received by a loopback stand-in that
 * checks method, path, token and body against the Bot API's documented shape.
 */
describe('messaging-b contract (Telegram Bot API webhook, getFile, sendMessage)', () => {
  let app: TestApp;
  let vendor: MessagingBVendor;
  let db: DbService;
  let owner: string;
  let acmeId: string;
  let integrationId: string;

  const post = (update: Update, secret = WEBHOOK_SECRET) =>
    app.request('POST', '/api/channels/messaging-b/webhook', { body: JSON.stringify(asParsed(update)), headers: { 'content-type': 'application/json', 'x-messaging-b-secret-token': secret } });
  const processed = (update: Update) => processedEvent(db, 'messaging-b', `${integrationId}:${update.update_id}`);
  const sendsTo = (chatId: string) => vendor.sends().filter((s) => String(s.body.chat_id) === chatId);

  /** Exactly one reply to the message, once sent, answering it with reply_parameters. */
  async function oneReplyTo(chatId: string, messageId: number) {
    const to = () => sendsTo(chatId).filter((s) => s.body.reply_parameters?.message_id === messageId);
    await eventually(`sendMessage answering ${chatId}/${messageId}`, async () => (to().length > 0 ? true : undefined));
    await sleep(300);
    expect(to()).toHaveLength(1);
    return to()[0]!;
  }

  beforeAll(async () => {
    vendor = await startMessagingBVendor(tg.BOT_TOKEN);
    app = await startTestApp({ env: { PUBLIC_URL, MESSAGING_B_API_BASE_URL: vendor.url, ATTACHMENT_HOSTS: vendor.host } });
    db = app.running.app.get(DbService);
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

  it('connects as the guide says: the webhook URL, the secret token, and the binding verified by its code sent to the bot', async () => {
    const urls = await app.get(`/api/orgs/${acmeId}/channels/webhook-urls`, { token: owner });
    expect(urls.body['messaging-b']).toEqual([`${PUBLIC_URL}/api/channels/messaging-b/webhook`]);
    const created = await app.post(
      `/api/orgs/${acmeId}/integrations`,
      { channel: 'messaging-b', config: { botUsername: tg.BOT_USERNAME }, secrets: { webhookSecret: WEBHOOK_SECRET, botToken: tg.BOT_TOKEN } },
      { token: owner },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ verificationStatus: 'pending', verificationCode: expect.any(String) });
    integrationId = created.body.id;
    // Another secret token is not this bot's webhook.
    expect((await post(tg.privateUpdate(700, 1300, tg.text), `${WEBHOOK_SECRET}-other`)).status).toBe(401);
    const code = tg.privateUpdate(701, 1301, { text: created.body.verificationCode });
    expect((await post(code)).status).toBe(200);
    expect(await processed(code)).toMatchObject({ status: 'ignored', reason: 'binding_verified' });
    expect((await app.get(`/api/orgs/${acmeId}/integrations/${integrationId}`, { token: owner })).body.verificationStatus).toBe('verified');
    expect(vendor.sends()).toHaveLength(0);
  });

  it('a private message gets one reply in the Bot API format, answering it; a redelivered update is acknowledged once', async () => {
    const update = tg.privateUpdate(702, 1365, tg.text);
    expect((await post(update)).body).toEqual({ ok: true });
    expect((await post(update)).body).toEqual({ ok: true, duplicate: true });
    const done = await processed(update);
    expect(done).toMatchObject({ status: 'done', org_id: acmeId });
    const reply = await oneReplyTo(PRIVATE_CHAT, 1365);
    const thread = await conversationMessages(db, done.conversation_id!);
    expect(thread.map((m) => m.role)).toEqual(['client', 'specialist']);
    expect(thread[0]!.content).toBe(tg.text.text);
    expect(reply.call).toMatchObject({ method: 'POST', path: `/bot${tg.BOT_TOKEN}/sendMessage` });
    expect(reply.body).toEqual({ chat_id: PRIVATE_CHAT, text: thread[1]!.content, reply_parameters: { message_id: 1365, allow_sending_without_reply: true } });
  });

  it('photos (the largest size), documents, voice, audio, video, video notes, animations and stickers reach the conversation through getFile, byte for byte', async () => {
    const media: Array<{ content: Partial<Message>; fileId: string; path: string; name: string; type: string; text: string }> = [
      { content: tg.photo, fileId: tg.photo.photo[2].file_id, path: 'photos/file_0.jpg', name: 'photo.jpg', type: 'image/jpeg', text: tg.photo.caption },
      { content: tg.document, fileId: tg.document.document.file_id, path: 'documents/file_1.pdf', name: 'Testfile.pdf', type: 'application/pdf', text: tg.document.caption },
      { content: tg.voice, fileId: tg.voice.voice.file_id, path: 'voice/file_2.oga', name: 'voice.ogg', type: 'audio/ogg', text: '' },
      { content: tg.audio, fileId: tg.audio.audio.file_id, path: 'music/file_3.mp3', name: 'test-music.mp3', type: 'audio/mpeg', text: '' },
      { content: tg.video, fileId: tg.video.video.file_id, path: 'videos/file_4.mp4', name: 'unboxing.mp4', type: 'video/mp4', text: tg.video.caption },
      { content: tg.videoNote, fileId: tg.videoNote.video_note.file_id, path: 'video_notes/file_5.mp4', name: 'video_note.mp4', type: 'video/mp4', text: '' },
      { content: tg.animation, fileId: tg.animation.animation.file_id, path: 'animations/file_6.mp4', name: 'shrug.gif.mp4', type: 'video/mp4', text: '' },
      { content: tg.sticker, fileId: tg.sticker.sticker.file_id, path: 'stickers/file_7.webp', name: 'sticker.webp', type: 'image/webp', text: '' },
    ];
    let conversationId: string | null = null;
    for (const [i, m] of media.entries()) {
      const bytes = randomBytes(1024 + i);
      vendor.storeFile(m.fileId, m.path, bytes, m.type);
      const update = tg.privateUpdate(710 + i, 1400 + i, m.content);
      expect((await post(update)).status).toBe(200);
      const done = await processed(update);
      expect(done, m.name).toMatchObject({ status: 'done', last_error: null });
      conversationId ??= done.conversation_id;
      expect(done.conversation_id).toBe(conversationId);
      const artifacts = await conversationArtifacts(app, db, conversationId!);
      const artifact = artifacts.find((a) => a.bytes.equals(bytes));
      expect(artifact, m.name).toMatchObject({ name: m.name, content_type: m.type, size: bytes.length });
      const client = (await conversationMessages(db, conversationId!)).find((c) => c.role === 'client' && c.content.includes(artifact!.id))!;
      expect(client.content).toBe([m.text, `[resource uri="artifact://${artifact!.id}" name="${m.name}" mimeType="${m.type}" size="${bytes.length}"]`].filter(Boolean).join('\n'));
      await oneReplyTo(PRIVATE_CHAT, 1400 + i);
    }
    // One getFile per file: the largest photo size only, the animation once (not again as its document).
    expect(vendor.getFiles().map((c) => c.query.get('file_id'))).toEqual(media.map((m) => m.fileId));
    expect(vendor.downloads().map((c) => c.path)).toEqual(media.map((m) => `/file/bot${tg.BOT_TOKEN}/${m.path}`));
    expect(await conversationArtifacts(app, db, conversationId!)).toHaveLength(media.length);
  });

  it('a file over the download limit is skipped before any call, and the message keeps its turn and says why', async () => {
    const before = vendor.calls.length;
    const update = tg.privateUpdate(730, 1500, tg.hugeDocument);
    expect((await post(update)).status).toBe(200);
    const done = await processed(update);
    expect(done).toMatchObject({ status: 'done', last_error: `attachments not fetched: server.log: too_large (${25 * 1024 * 1024} bytes)` });
    await oneReplyTo(PRIVATE_CHAT, 1500);
    expect(vendor.calls.slice(before).map((c) => c.path)).toEqual([`/bot${tg.BOT_TOKEN}/sendMessage`]);
    const client = (await conversationMessages(db, done.conversation_id!)).filter((m) => m.role === 'client').pop()!;
    expect(client.content).toBe(tg.hugeDocument.caption);
  });

  it('in groups, the bot answers a mention (text, caption or its user), its command and a reply to it; nothing else', async () => {
    const photoBytes = randomBytes(900);
    vendor.storeFile(tg.captionMention.photo[2].file_id, 'photos/file_9.jpg', photoBytes, 'image/jpeg');
    const addressed: Array<[number, Partial<Message>, string]> = [
      [-1001234567890, tg.mentionEntity, 'where is my order?'],
      [-1001234567891, tg.botCommand, '/help'],
      [-1001234567892, tg.textMention, tg.textMention.text],
      [-1001234567893, tg.replyToBot, tg.replyToBot.text],
      [-1001234567894, tg.captionMention, 'is this covered?'],
    ];
    for (const [i, [chat, content, text]] of addressed.entries()) {
      const update = tg.groupUpdate(740 + i, chat, 20 + i, content);
      expect((await post(update)).status).toBe(200);
      const done = await processed(update);
      expect(done, text).toMatchObject({ status: 'done' });
      expect((await conversationMessages(db, done.conversation_id!))[0]!.content.split('\n')[0]).toBe(text);
      await oneReplyTo(String(chat), 20 + i);
    }
    const [photo] = await conversationArtifacts(app, db, (await processed(tg.groupUpdate(744, -1001234567894, 24, tg.captionMention))).conversation_id!);
    expect(photo!.bytes.equals(photoBytes)).toBe(true);

    const ignored: Array<[Update, string]> = [
      [tg.groupUpdate(750, -1001234567895, 30, tg.unaddressed), 'unaddressed'],
      [tg.groupUpdate(751, -1001234567896, 31, tg.otherBotMention), 'unaddressed'],
      [tg.editedMessage(752), 'unsupported_event'],
    ];
    for (const [update] of ignored) expect((await post(update)).status).toBe(200);
    for (const [update, reason] of ignored) expect(await processed(update)).toMatchObject({ status: 'ignored', reason });
    await sleep(300);
    expect(sendsTo('-1001234567895')).toHaveLength(0);
    expect(sendsTo('-1001234567896')).toHaveLength(0);
    const conversations = await rows<{ n: number }>(db, sql`select count(*)::int as n from conversations where org_id = ${acmeId} and channel = 'messaging-b'`);
    expect(conversations[0]!.n).toBe(1 + addressed.length);
  });
});
