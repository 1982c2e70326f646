import { createHmac } from 'node:crypto';
import type { Update } from '@grammyjs/types';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Clock } from '../../src/platform/clock/clock.js';
import { channelsConfig, type ChannelsConfig } from '../../src/modules/channels/index.js';
import { loadConfig } from '../../src/platform/config/config.js';
import { DbService } from '../../src/platform/db/db.service.js';
import * as slack from '../fixtures/vendors/slack/events.js';
import * as tg from '../fixtures/vendors/telegram/updates.js';
import { startChatAVendor, type ChatAVendor } from '../support/chat-a-vendor.js';
import { enterpriseChatVendorSettings, messageActivity, startEnterpriseChatVendor, type EnterpriseChatVendor, type TeamsConversationType } from '../support/enterprise-chat-vendor.js';
import { testEnv } from '../support/env.js';
import { conversationMessages, eventually, processedEvent, rows, sleep, type InboundEvent } from '../support/inbound.js';
import { FakeProvider } from '../support/llm-provider.js';
import { startMessagingAVendor, type MessagingAVendor } from '../support/messaging-a-vendor.js';
import { startMessagingBVendor, type MessagingBVendor } from '../support/messaging-b-vendor.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { POOL_ACCOUNT_SID, acmeConnected, messagingACall, postMessagingA } from '../support/webhooks.js';

/**
 * Rules of the inbound channels that work but that no other test pins down (spec 4.8 rules 1 and 2,
 * spec 8 "chat-a engagement TTL" and "messaging-a reply"): the thread key of each conversation type,
 * the engagement gate measured on the service's clock (moved, never waited for), and the cut of a
 * messaging-a reply. Every vendor is a loopback stand-in; the Specialist is a local model stand-in.
 */
const PUBLIC_URL = 'https://service.example.com';
const HOUR = 3600_000;
const MINUTE = 60_000;

const EC_APP = { id: 'c9e8c047-2a74-40a2-b28a-b162d5f5327c', password: 'bot-app-password-0123456789' };
const EC_BOT = `28:${EC_APP.id}`;
const EC_TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';

const CHAT_A_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const CHAT_A_TOKEN = 'xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy';

const MB_SECRET = 'tg-secret-token_rules-0123456789-ABCDEF';

const MA_TOKEN = 'platform-auth-token-rules-0123456789';
const MA_POOL = '+15550300001';
const MA_CLIENT = '+14017122661';

describe('inbound channel rules (spec 4.8 rules 1 and 2, spec 8)', () => {
  let app: TestApp;
  let db: DbService;
  let clock: Clock;
  let llm: FakeProvider;
  let ec: EnterpriseChatVendor;
  let chatA: ChatAVendor;
  let mb: MessagingBVendor;
  let ma: MessagingAVendor;
  let acmeId: string;
  let mbIntegration: string;

  // enterprise-chat: activities of one tenant, tokens minted at the service's (possibly moved) time.
  const ecActivity = (conversation: { id: string; type: TeamsConversationType }, text: string, over: Record<string, unknown> = {}) =>
    messageActivity(ec, { tenant: EC_TENANT, bot: EC_BOT, conversation }, text, over);
  const ecMention = (conversation: { id: string; type: TeamsConversationType }, text: string, over: Record<string, unknown> = {}) =>
    ecActivity(conversation, `<at>Acme Specialist</at> ${text}`, { entities: [{ type: 'mention', mentioned: { id: EC_BOT, name: 'Acme Specialist' }, text: '<at>Acme Specialist</at>' }], ...over });
  async function ecSend(activity: ReturnType<typeof ecActivity>): Promise<InboundEvent> {
    const token = await ec.channelToken({}, { now: clock.now() });
    const res = await app.request('POST', '/api/channels/enterprise-chat/messages', {
      body: JSON.stringify(activity),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    return processedEvent(db, 'enterprise-chat', `${activity.conversation.id}:${activity.id}`);
  }

  // chat-a: Events API envelopes signed with the real time (the signature's freshness is not business time).
  let chatAEvent = 0;
  async function chatASend(event: Record<string, unknown>): Promise<InboundEvent> {
    const id = `Ev-rules-${++chatAEvent}`;
    const raw = JSON.stringify(slack.envelope(event, id));
    const ts = Math.floor(Date.now() / 1000);
    const signature = `v0=${createHmac('sha256', CHAT_A_SECRET).update(`v0:${ts}:${raw}`).digest('hex')}`;
    const res = await app.request('POST', '/api/channels/chat-a/events', {
      body: raw,
      headers: { 'content-type': 'application/json', 'x-chat-a-request-timestamp': String(ts), 'x-chat-a-signature': signature },
    });
    expect(res.status).toBe(200);
    return processedEvent(db, 'chat-a', `${slack.TEAM_ID}:${id}`);
  }
  let chatATs = 1_600_000_000;
  const nextTs = () => `${chatATs++}.000100`;
  const chatAChannelMessage = (channel: string, text: string, threadTs?: string) => ({
    type: 'message',
    channel,
    user: 'U123ABC456',
    text,
    ts: nextTs(),
    channel_type: 'channel',
    ...(threadTs ? { thread_ts: threadTs } : {}),
  });

  // messaging-b: Bot API updates with the integration's secret token.
  let updateId = 900;
  let messageId = 5000;
  async function mbSend(update: Update): Promise<InboundEvent> {
    const res = await app.request('POST', '/api/channels/messaging-b/webhook', {
      body: JSON.stringify(update),
      headers: { 'content-type': 'application/json', 'x-messaging-b-secret-token': MB_SECRET },
    });
    expect(res.status).toBe(200);
    return processedEvent(db, 'messaging-b', `${mbIntegration}:${update.update_id}`);
  }
  const mbGroup = (chat: number, text: string) => tg.groupUpdate(updateId++, chat, messageId++, { text });
  const mbGroupMention = (chat: number, text: string) =>
    tg.groupUpdate(updateId++, chat, messageId++, { text: `@${tg.BOT_USERNAME} ${text}`, entities: [{ type: 'mention', offset: 0, length: tg.BOT_USERNAME.length + 1 }] });

  /** The event produced no turn: ignored for the reason, no conversation, the text stored nowhere. */
  async function noTurn(event: InboundEvent, reason: string, text: string) {
    expect(event).toMatchObject({ status: 'ignored', reason, conversation_id: null });
    const stored = await rows<{ n: number }>(db, sql`select count(*)::int as n from conversation_messages where content like ${`%${text}%`}`);
    expect(stored[0]!.n, text).toBe(0);
  }

  const conversationCount = async () => (await rows<{ n: number }>(db, sql`select count(*)::int as n from conversations where org_id = ${acmeId}`))[0]!.n;

  beforeAll(async () => {
    llm = new FakeProvider();
    const llmUrl = await llm.start();
    ec = await startEnterpriseChatVendor(EC_APP);
    chatA = await startChatAVendor(CHAT_A_TOKEN);
    mb = await startMessagingBVendor(tg.BOT_TOKEN);
    ma = await startMessagingAVendor();
    ma.addAccount(POOL_ACCOUNT_SID, MA_TOKEN, [MA_POOL]);
    app = await startTestApp({
      env: {
        PUBLIC_URL,
        LLM_PROVIDER: 'openai-compatible',
        LLM_BASE_URL: llmUrl,
        LLM_MODEL: 'gpt-4o-mini',
        LLM_API_KEY: 'test-key',
        ENTERPRISE_CHAT_APP_ID: EC_APP.id,
        ...enterpriseChatVendorSettings(ec, EC_APP.password),
        CHAT_A_SIGNING_SECRET: CHAT_A_SECRET,
        CHAT_A_API_BASE_URL: chatA.apiBaseUrl,
        MESSAGING_B_API_BASE_URL: mb.url,
        MESSAGING_A_AUTH_TOKEN: MA_TOKEN,
        MESSAGING_A_NUMBER_POOL: MA_POOL,
        MESSAGING_A_API_BASE_URL: `${ma.url}/2010-04-01`,
        // CHANNEL_ENGAGEMENT_TTL_HOURS is left unset on purpose: the default is under test.
      },
    });
    db = app.running.app.get(DbService);
    clock = app.running.app.get(Clock);
    const connected = await acmeConnected(app, [
      { channel: 'enterprise-chat', externalId: EC_TENANT },
      { channel: 'chat-a', externalId: slack.TEAM_ID, config: { botUserId: slack.BOT_USER_ID }, secrets: { botToken: CHAT_A_TOKEN } },
      { channel: 'messaging-b', config: { botUsername: tg.BOT_USERNAME }, secrets: { webhookSecret: MB_SECRET, botToken: tg.BOT_TOKEN } },
      { channel: 'messaging-a', config: { whitelist: [MA_CLIENT] } },
    ]);
    acmeId = connected.acmeId;
    mbIntegration = connected.integrationIds[2]!;
  });
  afterAll(async () => {
    await app?.close();
    await Promise.all([ec?.close(), chatA?.close(), mb?.close(), ma?.close(), llm?.stop()]);
  });

  describe('thread keys per conversation type (spec 4.8 rule 1)', () => {
    it('enterprise-chat: a personal chat, a group chat and each channel thread (conversation id with ;messageid=) are one session each', async () => {
      const personal = { id: 'a:1Xq-personal-chat-of-adele', type: 'personal' as const };
      const otherPersonal = { id: 'a:1Xq-personal-chat-of-megan', type: 'personal' as const };
      const group = { id: '19:group-chat-one@thread.v2', type: 'groupChat' as const };
      const otherGroup = { id: '19:group-chat-two@thread.v2', type: 'groupChat' as const };
      const channel = '19:c5e8a2b6d0f34f7d9b1a3c5e7f9a1b3d@thread.tacv2';
      const threadA = { id: `${channel};messageid=1715678400001`, type: 'channel' as const };
      const threadB = { id: `${channel};messageid=1715678400002`, type: 'channel' as const };

      const p1 = await ecSend(ecActivity(personal, 'first question in private'));
      const p2 = await ecSend(ecActivity(personal, 'second question in private'));
      const q1 = await ecSend(ecActivity(otherPersonal, 'another person in private'));
      const g1 = await ecSend(ecMention(group, 'a group chat question'));
      const g2 = await ecSend(ecActivity(group, 'a follow-up in the group chat'));
      const h1 = await ecSend(ecMention(otherGroup, 'another group chat'));
      const inChannel = [
        ecMention(threadA, 'first topic in the channel'),
        ecMention(threadB, 'an unrelated topic in the same channel'),
        ecActivity(threadA, 'more on the first topic'),
        ecActivity(threadB, 'more on the unrelated topic'),
      ];
      const [a1, b1, a2, b2] = [await ecSend(inChannel[0]!), await ecSend(inChannel[1]!), await ecSend(inChannel[2]!), await ecSend(inChannel[3]!)] as const;
      for (const e of [p1, p2, q1, g1, g2, h1, a1, b1, a2, b2]) expect(e.status).toBe('done');

      // Messages of one thread share one session...
      expect(p2.conversation_id).toBe(p1.conversation_id);
      expect(g2.conversation_id).toBe(g1.conversation_id);
      expect(a2.conversation_id).toBe(a1.conversation_id);
      expect(b2.conversation_id).toBe(b1.conversation_id);
      // ...and every thread is its own: two unrelated threads of one channel are two sessions.
      expect(new Set([p1, q1, g1, h1, a1, b1].map((e) => e.conversation_id)).size).toBe(6);
      expect((await conversationMessages(db, a1.conversation_id!)).filter((m) => m.role === 'client').map((m) => m.content)).toEqual(['first topic in the channel', 'more on the first topic']);
      expect((await conversationMessages(db, b1.conversation_id!)).filter((m) => m.role === 'client').map((m) => m.content)).toEqual([
        'an unrelated topic in the same channel',
        'more on the unrelated topic',
      ]);
      // Each reply goes back into its own thread (the conversation id naming its root message).
      const replyTo = (activityId: string) => ec.replies().find((r) => r.activity.replyToId === activityId);
      await eventually('the replies of both channel threads', async () => (inChannel.every((a) => replyTo(a.id)) ? true : undefined));
      for (const a of inChannel) expect(replyTo(a.id)!.activity.conversation).toEqual({ id: a.conversation.id });
      expect(ec.violations).toEqual([]);
    });

    it('chat-a: one session per direct-message channel, one per thread (thread_ts) in a channel', async () => {
      const dm1 = await chatASend({ ...slack.directMessage, channel: 'D0RULES01', text: 'hello in a DM', ts: nextTs() });
      const dm2 = await chatASend({ ...slack.directMessage, channel: 'D0RULES01', text: 'a second DM, no thread', ts: nextTs() });
      const otherDm = await chatASend({ ...slack.directMessage, channel: 'D0RULES02', text: 'another DM channel', ts: nextTs() });
      const rootA = chatAChannelMessage('C0RULES01', `<@${slack.BOT_USER_ID}> topic A`);
      const rootB = chatAChannelMessage('C0RULES01', `<@${slack.BOT_USER_ID}> topic B`);
      const a1 = await chatASend(rootA);
      const b1 = await chatASend(rootB);
      const a2 = await chatASend(chatAChannelMessage('C0RULES01', 'more on A', rootA.ts));
      const b2 = await chatASend(chatAChannelMessage('C0RULES01', 'more on B', rootB.ts));
      for (const e of [dm1, dm2, otherDm, a1, b1, a2, b2]) expect(e.status).toBe('done');
      expect(dm2.conversation_id).toBe(dm1.conversation_id);
      expect(a2.conversation_id).toBe(a1.conversation_id);
      expect(b2.conversation_id).toBe(b1.conversation_id);
      expect(new Set([dm1, otherDm, a1, b1].map((e) => e.conversation_id)).size).toBe(4);

      // Replies: in the DM without a thread, in the channel under each thread's root.
      await eventually('the chat-a replies', async () => (chatA.posts().length >= 7 ? true : undefined));
      await sleep(300);
      const posts = chatA.posts().map((p) => p.body as { channel: string; thread_ts?: string });
      expect(posts.filter((p) => p.channel === 'D0RULES01')).toHaveLength(2);
      expect(posts.filter((p) => p.channel === 'D0RULES01').every((p) => p.thread_ts === undefined)).toBe(true);
      expect(
        posts
          .filter((p) => p.channel === 'C0RULES01')
          .map((p) => p.thread_ts)
          .sort(),
      ).toEqual([rootA.ts, rootA.ts, rootB.ts, rootB.ts].sort());
      expect(chatA.problems()).toEqual([]);
    });

    it('messaging-b: one session per chat; two groups are two sessions, messages of one group share one', async () => {
      const private1 = await mbSend(tg.privateUpdate(updateId++, messageId++, { text: 'private one' }));
      const private2 = await mbSend(tg.privateUpdate(updateId++, messageId++, { text: 'private two' }));
      const groupA1 = await mbSend(mbGroupMention(-1009000000001, 'group A question'));
      const groupB1 = await mbSend(mbGroupMention(-1009000000002, 'group B question'));
      // Inside the engagement the bot follows the group without being named (privacy mode off).
      const groupA2 = await mbSend(mbGroup(-1009000000001, 'group A follow-up'));
      const groupB2 = await mbSend(mbGroupMention(-1009000000002, 'group B again'));
      for (const e of [private1, private2, groupA1, groupB1, groupA2, groupB2]) expect(e.status).toBe('done');
      expect(private2.conversation_id).toBe(private1.conversation_id);
      expect(groupA2.conversation_id).toBe(groupA1.conversation_id);
      expect(groupB2.conversation_id).toBe(groupB1.conversation_id);
      expect(new Set([private1, groupA1, groupB1].map((e) => e.conversation_id)).size).toBe(3);
      expect(mb.problems()).toEqual([]);
    });
  });

  describe('engagement gate on the service clock (spec 4.8 rule 2, spec 8 "chat-a engagement TTL")', () => {
    it('the engagement TTL defaults to 24 hours', () => {
      expect(app.running.app.get<ChannelsConfig>(channelsConfig.token).engagementTtlHours).toBe(24);
      expect(channelsConfig.read(loadConfig(testEnv({ DATA_DIR: app.env.DATA_DIR }))).engagementTtlHours).toBe(24);
    });

    /** One thread of a channel where the bot must be addressed: a message naming it, and one that does not. */
    interface Gated {
      addressed(text: string): Promise<InboundEvent>;
      unaddressed(text: string): Promise<InboundEvent>;
    }
    const ecThread = { id: '19:gate-channel@thread.tacv2;messageid=1715679999001', type: 'channel' as const };
    const chatARoot = chatAChannelMessage('C0GATE001', `<@${slack.BOT_USER_ID}> opening the gate`);
    const gates: Array<[string, () => Gated]> = [
      ['enterprise-chat channel thread', () => ({ addressed: (t) => ecSend(ecMention(ecThread, t)), unaddressed: (t) => ecSend(ecActivity(ecThread, t)) })],
      [
        'chat-a channel thread',
        () => {
          let opened = false;
          return {
            // The first addressed message is the thread's root; later ones are mentions inside the thread.
            addressed: (t) =>
              chatASend(opened ? chatAChannelMessage('C0GATE001', `<@${slack.BOT_USER_ID}> ${t}`, chatARoot.ts) : ((opened = true), { ...chatARoot, text: `<@${slack.BOT_USER_ID}> ${t}` })),
            unaddressed: (t) => chatASend(chatAChannelMessage('C0GATE001', t, chatARoot.ts)),
          };
        },
      ],
      ['messaging-b group', () => ({ addressed: (t) => mbSend(mbGroupMention(-1009000000099, t)), unaddressed: (t) => mbSend(mbGroup(-1009000000099, t)) })],
    ];

    it.each(gates)('%s: a mention opens it, a reply inside 24 h continues it, after 24 h a reply gets no turn, a mention reopens it, [done] completes it', async (name, make) => {
      const gate = make();
      const opened = await gate.addressed(`${name}: opening`);
      expect(opened.status).toBe('done');
      const conversation = opened.conversation_id;

      // A minute short of 24 hours after the last message: still engaged (and the engagement renewed).
      clock.advance(24 * HOUR - MINUTE);
      expect(await gate.unaddressed(`${name}: inside the TTL`)).toMatchObject({ status: 'done', conversation_id: conversation });

      // A minute past 24 hours after that message: the engagement has expired.
      clock.advance(24 * HOUR + MINUTE);
      await noTurn(await gate.unaddressed(`${name}: after the TTL`), 'unaddressed', `${name}: after the TTL`);

      // Addressing the bot again reopens the engagement, in the same session.
      expect(await gate.addressed(`${name}: reopening`)).toMatchObject({ status: 'done', conversation_id: conversation });
      expect(await gate.unaddressed(`${name}: continuing`)).toMatchObject({ status: 'done', conversation_id: conversation });

      // [done] completes it: no turn for [done], none for the next unaddressed reply, however soon.
      expect(await gate.unaddressed('[done]')).toMatchObject({ status: 'ignored', reason: 'engagement_completed', conversation_id: null });
      await noTurn(await gate.unaddressed(`${name}: after done`), 'unaddressed', `${name}: after done`);
      const clientTexts = (await conversationMessages(db, conversation!)).filter((m) => m.role === 'client').map((m) => m.content);
      expect(clientTexts).toEqual([`${name}: opening`, `${name}: inside the TTL`, `${name}: reopening`, `${name}: continuing`]);
    });

    it('enterprise-chat: no turn for unaddressed messages without an engagement, bot-authored messages and other activity types', async () => {
      const before = await conversationCount();
      const fresh = (n: number) => ({ id: `19:quiet-channel@thread.tacv2;messageid=17156800000${n}`, type: 'channel' as const });
      await noTurn(await ecSend(ecActivity(fresh(1), 'talking among ourselves')), 'unaddressed', 'talking among ourselves');
      // Mentioning someone else is not addressing the bot.
      const colleague = ecActivity(fresh(2), '<at>Megan Bowen</at> can you look', {
        entities: [{ type: 'mention', mentioned: { id: '29:megan', name: 'Megan Bowen' }, text: '<at>Megan Bowen</at>' }],
      });
      await noTurn(await ecSend(colleague), 'unaddressed', 'can you look');
      await noTurn(
        await ecSend(ecActivity({ id: 'a:1Xq-gate-personal', type: 'personal' }, 'the bot speaking', { from: { id: EC_BOT, name: 'Acme Specialist' } })),
        'bot_authored',
        'the bot speaking',
      );
      await noTurn(await ecSend(ecMention(fresh(3), 'another bot talking', { from: { id: '28:other-bot', name: 'Other Bot', role: 'bot' } })), 'bot_authored', 'another bot talking');
      for (const type of ['conversationUpdate', 'messageReaction', 'typing', 'invoke', 'event', 'installationUpdate', 'messageUpdate', 'messageDelete', 'endOfConversation']) {
        await noTurn(await ecSend(ecActivity({ id: 'a:1Xq-gate-personal', type: 'personal' }, `an activity of type ${type}`, { type })), 'unsupported_activity', `an activity of type ${type}`);
      }
      expect(await conversationCount()).toBe(before);
    });
  });

  describe('messaging-a reply length (spec 8: "truncated to 4096 characters")', () => {
    let sid = 0;
    /** Sends one SMS to the pool and answers the one message the stand-in received in reply, with the stored reply. */
    async function replyWhenTheSpecialistSays(reply: string) {
      llm.reply = reply;
      try {
        const messageSid = `SMrules${String(++sid).padStart(27, '0')}`;
        expect(await postMessagingA(app.url, messagingACall(PUBLIC_URL, MA_TOKEN, { MessageSid: messageSid, From: MA_CLIENT, To: MA_POOL, Body: `question ${sid}` }))).toBe(200);
        const event = await processedEvent(db, 'messaging-a', messageSid);
        expect(event.status).toBe('done');
        const stored = await eventually('the Specialist reply', async () => (await conversationMessages(db, event.conversation_id!)).filter((m) => m.role === 'specialist').pop());
        const sendsOfThisReply = () => ma.sent().filter((c) => c.form.get('Body')!.startsWith(reply.slice(0, 50)));
        await eventually('the messaging-a send', async () => (sendsOfThisReply().length > 0 ? true : undefined));
        await sleep(300);
        const sends = sendsOfThisReply();
        expect(sends).toHaveLength(1);
        expect(ma.violations).toEqual([]);
        return { body: sends[0]!.form.get('Body')!, stored: stored.content };
      } finally {
        llm.reply = undefined;
      }
    }

    it('a 10 000-character Specialist reply leaves as one message of exactly its first 4096 characters', async () => {
      const reply = `Long answer: ${Array.from({ length: 10_000 - 13 }, (_, i) => 'abcdefghijklmnopqrstuvwxyz .,'[i % 29]).join('')}`;
      expect(reply).toHaveLength(10_000);
      const { body, stored } = await replyWhenTheSpecialistSays(reply);
      expect(stored).toBe(reply);
      expect(body).toHaveLength(4096);
      expect(body).toBe(reply.slice(0, 4096));
    });

    it('the cut never splits a character in two: an emoji straddling the limit is left out whole', async () => {
      const reply = `Emoji answer ${'x'.repeat(4096 - 14)}\u{1F600} and more after the limit`;
      // The emoji's two UTF-16 halves sit at positions 4095 and 4096.
      expect(reply.codePointAt(4095)).toBe(0x1f600);
      const { body } = await replyWhenTheSpecialistSays(reply);
      expect(body).not.toContain('\uFFFD');
      expect(body).toBe(reply.slice(0, 4095));
    });
  });
});
