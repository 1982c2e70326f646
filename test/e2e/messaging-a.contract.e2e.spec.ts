import { sql } from 'drizzle-orm';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACT_STORAGE, type ArtifactStorage } from '../../src/modules/conversations/artifacts.storage.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { startMessagingAVendor, twilioFixture, type MessagingAVendor } from '../support/messaging-a-vendor.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { connectVerified } from '../support/webhooks.js';

/**
 * messaging-a (Twilio) contract: the vendor's documented webhook payloads, signed with the vendor
 * SDK's own signature function, sent to the running app; the replies and media downloads checked
 * at a loopback stand-in of the REST API against the request the vendor's SDK itself makes.
 */
const PUBLIC_URL = 'https://service.example.com';
const WEBHOOK = '/api/channels/messaging-a/inbound';
const PLATFORM = { sid: 'AC11111111111111111111111111111111', token: 'platform-auth-token-0123456789abcdef' };
const OWN = { sid: 'AC22222222222222222222222222222222', token: 'own-sub-account-token-fedcba9876543210' };
const POOL_SMS = '+15550100001';
const POOL_WHATSAPP = 'whatsapp:+15550100002';
const OWN_SMS = '+15550200001';
const OWN_WHATSAPP = 'whatsapp:+15550200002';
const CLIENT = '+14017122661';
const CLIENT_WHATSAPP = `whatsapp:${CLIENT}`;
const PASSWORD = 'demo1234';
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('a photo of the damaged part')]);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function rows<T>(query: Promise<unknown>): Promise<T[]> {
  const result = await query;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** What the vendor's SDK itself sends for `messages.create`: its method, URL, Basic credentials and form. */
async function sdkSend(account: { sid: string; token: string }, params: { to: string; from: string; body: string }) {
  let seen: { method: string; uri: string; username?: string; password?: string; data?: Record<string, string>; headers?: Record<string, string> } | undefined;
  const httpClient = {
    request: async (opts: typeof seen) => {
      seen = opts;
      return { statusCode: 201, body: { ...twilioFixture<Record<string, unknown>>('message-created.json'), account_sid: account.sid }, headers: {} };
    },
  };
  await twilio(account.sid, account.token, { httpClient: httpClient as never }).messages.create(params);
  return seen!;
}

describe('messaging-a contract (Twilio SDK, documented payloads, REST API stand-in)', () => {
  let app: TestApp;
  let vendor: MessagingAVendor;
  let db: DbService;
  let storage: ArtifactStorage;
  let am: string;
  let acmeId: string;
  let integrationId: string;

  /** A documented sample payload, with this test's account, numbers and ids. */
  const payload = (fixture: string, over: Record<string, string>) => ({ ...twilioFixture(fixture), ...over });

  /**
   * Posts the params as the vendor does: form-encoded, signed by the SDK for PUBLIC_URL's origin +
   * path, under the neutral header name or the vendor's own (`X-Twilio-Signature`).
   */
  const deliver = async (params: Record<string, string>, authToken: string, signatureHeader = 'x-messaging-a-signature') => {
    const url = `${PUBLIC_URL}${WEBHOOK}`;
    const signature = twilio.getExpectedTwilioSignature(authToken, url, params);
    expect(twilio.validateRequest(authToken, signature, url, params)).toBe(true);
    return app.request('POST', WEBHOOK, { body: new URLSearchParams(params).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', [signatureHeader]: signature } });
  };

  const event = async (sid: string) =>
    (
      await rows<{ status: string; reason: string | null; conversation_id: string | null; message_id: string | null; last_error: string | null }>(
        db.root.execute(sql`select status, reason, conversation_id, message_id, last_error from inbound_events where channel = 'messaging-a' and event_key = ${sid}`),
      )
    )[0];

  async function processed(sid: string) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const row = await event(sid);
      if (row && row.status !== 'queued' && row.status !== 'processing') return row;
      if (Date.now() > deadline) throw new Error(`event ${sid} not processed: ${JSON.stringify(row)}`);
      await sleep(100);
    }
  }

  /** The one outbound reply of a client message, once sent, with the stand-in's record of it. */
  async function replyTo(clientMessageId: string) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const [out] = await rows<{ status: string; content: string; external_id: string | null; last_error: string | null }>(
        db.root.execute(
          sql`select o.status, o.content, o.external_id, o.last_error from outbound_messages o join conversation_messages m on m.id = o.message_id where m.reply_to_message_id = ${clientMessageId}`,
        ),
      );
      if (out?.status === 'sent') return out;
      if (Date.now() > deadline) throw new Error(`no reply sent: ${JSON.stringify(out)} ${JSON.stringify(vendor.violations)}`);
      await sleep(100);
    }
  }

  /** Exactly one Specialist reply in the thread, sent once, in the vendor's shape for that account. */
  async function expectOneReply(conversationId: string, clientMessageId: string, account: { sid: string; token: string }, to: string, from: string) {
    const out = await replyTo(clientMessageId);
    const replies = await rows<{ id: string; content: string }>(
      db.root.execute(sql`select id, content from conversation_messages where conversation_id = ${conversationId} and role = 'specialist' and reply_to_message_id = ${clientMessageId}`),
    );
    expect(replies).toHaveLength(1);
    const sends = vendor.sent().filter((c) => c.form.get('To') === to && c.form.get('From') === from && c.form.get('Body') === replies[0]!.content);
    expect(sends).toHaveLength(1);
    const sent = sends[0]!;
    // The same request the vendor's SDK makes for these credentials and fields.
    const sdk = await sdkSend(account, { to, from, body: replies[0]!.content });
    expect(sdk.method.toUpperCase()).toBe(sent.method);
    expect(new URL(sdk.uri).pathname).toBe(sent.path);
    expect(sent.headers.authorization).toBe(`Basic ${Buffer.from(`${sdk.username}:${sdk.password}`).toString('base64')}`);
    expect(sent.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded\b/);
    expect(Object.fromEntries(sent.form)).toEqual(sdk.data);
    expect(out.external_id).toMatch(/^SM[0-9a-f]{32}$/i);
    return sent;
  }

  beforeAll(async () => {
    vendor = await startMessagingAVendor();
    vendor.addAccount(PLATFORM.sid, PLATFORM.token, [POOL_SMS, POOL_WHATSAPP]);
    vendor.addAccount(OWN.sid, OWN.token, [OWN_SMS, OWN_WHATSAPP]);
    app = await startTestApp({
      env: {
        PUBLIC_URL,
        MESSAGING_A_AUTH_TOKEN: PLATFORM.token,
        MESSAGING_A_NUMBER_POOL: `${POOL_SMS},${POOL_WHATSAPP}`,
        MESSAGING_A_API_BASE_URL: `${vendor.url}/2010-04-01`,
        ATTACHMENT_HOSTS: `${new URL(vendor.url).host},${new URL(vendor.cdnUrl).host}`,
      },
    });
    db = app.running.app.get(DbService);
    storage = app.running.app.get<ArtifactStorage>(ARTIFACT_STORAGE);
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    acmeId = (await app.get('/api/auth/me', { token: await app.login('client@acme.demo.invalid', PASSWORD) })).body.orgMemberships[0].orgId;
    integrationId = (await connectVerified(app, acmeId, { channel: 'messaging-a', config: { whitelist: [CLIENT, CLIENT_WHATSAPP] } }, am)).id;
  });
  afterAll(async () => {
    await app?.close();
    await vendor?.close();
  });

  it('answers a pool MMS with the empty TwiML document; one Specialist reply from the pool number with the platform account; the media kept with the right bytes', async () => {
    const sid = 'MM7d5f3b2c9a8e4d1f6b0c2a9e8d7f6c5b';
    const mediaUrl = vendor.addMedia(PLATFORM.sid, sid, 'ME557ce644e5ab84fa21cc21112e22c485', JPEG, 'image/jpeg');
    const params = payload('mms-inbound.json', { AccountSid: PLATFORM.sid, To: POOL_SMS, From: CLIENT, MediaUrl0: mediaUrl });
    const answer = await deliver(params, PLATFORM.token);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/xml\b/);
    // The SDK's own empty MessagingResponse, the element written open-and-closed.
    expect(String(answer.body).replace('<Response></Response>', '<Response/>')).toBe(new twilio.twiml.MessagingResponse().toString());

    const done = await processed(sid);
    expect(done).toMatchObject({ status: 'done', last_error: null });
    const [artifact] = await rows<{ id: string; name: string; content_type: string; size: number; storage_key: string }>(
      db.root.execute(sql`select id, name, content_type, size, storage_key from conversation_artifacts where conversation_id = ${done.conversation_id}`),
    );
    expect(artifact).toMatchObject({ content_type: 'image/jpeg', size: JPEG.length });
    expect((await storage.get(artifact!.storage_key)).equals(JPEG)).toBe(true);
    const [client] = await rows<{ content: string }>(db.root.execute(sql`select content from conversation_messages where id = ${done.message_id}`));
    expect(client!.content).toContain('Here is the photo of the damaged part');
    expect(client!.content).toContain(`[resource uri="artifact://${artifact!.id}" name="${artifact!.name}" mimeType="image/jpeg" size="${JPEG.length}"]`);

    // The media URL got the receiving account's Basic auth; its redirect to the CDN got none.
    const mediaCall = vendor.calls.find((c) => c.method === 'GET' && mediaUrl.endsWith(c.path))!;
    expect(mediaCall.headers.authorization).toBe(`Basic ${Buffer.from(`${PLATFORM.sid}:${PLATFORM.token}`).toString('base64')}`);
    expect(vendor.cdnCalls).toHaveLength(1);
    expect(vendor.cdnCalls[0]!.headers.authorization).toBeUndefined();

    await expectOneReply(done.conversation_id!, done.message_id!, PLATFORM, CLIENT, POOL_SMS);
    expect(vendor.violations).toEqual([]);
  });

  it('keeps the whatsapp: prefix: a pool WhatsApp sender is matched as such and answered from the WhatsApp pool sender', async () => {
    const params = payload('whatsapp-inbound.json', { AccountSid: PLATFORM.sid, To: POOL_WHATSAPP, From: CLIENT_WHATSAPP, WaId: CLIENT.slice(1) });
    // Signed under the vendor's own header name, as a real account sends it.
    expect((await deliver(params, PLATFORM.token, 'x-twilio-signature')).status).toBe(200);
    const done = await processed(params.MessageSid!);
    expect(done.status).toBe('done');
    // Another session than the same number's SMS.
    const sms = await processed('MM7d5f3b2c9a8e4d1f6b0c2a9e8d7f6c5b');
    expect(done.conversation_id).not.toBe(sms.conversation_id);
    await expectOneReply(done.conversation_id!, done.message_id!, PLATFORM, CLIENT_WHATSAPP, POOL_WHATSAPP);
    // A WhatsApp address is not its bare number: an SMS whitelist entry does not admit it.
    const stranger = payload('whatsapp-inbound.json', { AccountSid: PLATFORM.sid, To: POOL_WHATSAPP, From: 'whatsapp:+14017120000', MessageSid: 'SM9c2b7a4e1d3f5a6b8c0d2e4f6a8b0000' });
    expect((await deliver(stranger, PLATFORM.token)).status).toBe(200);
    expect(await processed(stranger.MessageSid!)).toMatchObject({ status: 'quarantined', reason: 'unresolved_org' });
    expect(vendor.violations).toEqual([]);
  });

  it("runs on the org's own account: its SID and token verify the webhook, its code verifies the binding, its credentials fetch the media and send the reply from its own number", async () => {
    const owner = await app.login('org_admin@acme.demo.invalid', PASSWORD);
    // Own numbers need the account's credentials; a pool number is never an org's own.
    const noSecrets = await app.patch(`/api/orgs/${acmeId}/integrations/${integrationId}`, { config: { numbers: [OWN_SMS] } }, { token: owner });
    expect(noSecrets.status).toBe(400);
    expect(noSecrets.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'secrets.accountSid' }), expect.objectContaining({ field: 'secrets.authToken' })]));
    const pooled = await app.patch(`/api/orgs/${acmeId}/integrations/${integrationId}`, { config: { numbers: [POOL_SMS] }, secrets: { accountSid: OWN.sid, authToken: OWN.token } }, { token: owner });
    expect(pooled.status).toBe(400);

    const switched = await app.patch(
      `/api/orgs/${acmeId}/integrations/${integrationId}`,
      { config: { numbers: [OWN_SMS, OWN_WHATSAPP], whitelist: [CLIENT, CLIENT_WHATSAPP] }, secrets: { accountSid: OWN.sid, authToken: OWN.token } },
      { token: owner },
    );
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ verificationStatus: 'pending', pendingSources: [OWN.sid], secretNames: ['accountSid', 'authToken'] });
    expect(JSON.stringify(switched.body)).not.toContain(OWN.token);

    // The webhook of the own account: the platform's token, a number not of the account, an unbound account refused.
    const base = (over: Record<string, string>) => payload('sms-inbound.json', { AccountSid: OWN.sid, To: OWN_SMS, From: CLIENT, ...over });
    expect((await deliver(base({ MessageSid: 'SMown0000000000000000000000000001' }), PLATFORM.token)).status).toBe(401);
    expect((await deliver(base({ MessageSid: 'SMown0000000000000000000000000002', To: '+15550209999' }), OWN.token)).status).toBe(401);
    expect((await deliver(base({ MessageSid: 'SMown0000000000000000000000000003', AccountSid: 'AC33333333333333333333333333333333' }), OWN.token)).status).toBe(401);
    // Still pending: a question is quarantined; the code texted to the own number verifies it.
    const early = base({ MessageSid: 'SMown0000000000000000000000000004', Body: 'Is this on?' });
    expect((await deliver(early, OWN.token)).status).toBe(200);
    expect(await processed(early.MessageSid!)).toMatchObject({ status: 'quarantined', reason: 'binding_unverified' });
    const proof = base({ MessageSid: 'SMown0000000000000000000000000005', Body: `code ${switched.body.verificationCode}` });
    expect((await deliver(proof, OWN.token)).status).toBe(200);
    expect(await processed(proof.MessageSid!)).toMatchObject({ status: 'ignored', reason: 'binding_verified' });
    expect((await app.get(`/api/orgs/${acmeId}/integrations/${integrationId}`, { token: owner })).body.verificationStatus).toBe('verified');

    // A message with media on the own account.
    const sid = 'MMown000000000000000000000000006';
    const mediaUrl = vendor.addMedia(OWN.sid, sid, 'MEown000000000000000000000000006', JPEG, 'image/jpeg');
    const params = payload('mms-inbound.json', {
      AccountSid: OWN.sid,
      To: OWN_SMS,
      From: CLIENT,
      MessageSid: sid,
      SmsMessageSid: sid,
      SmsSid: sid,
      MediaUrl0: mediaUrl,
      Body: 'Photo from our own line',
    });
    expect((await deliver(params, OWN.token)).status).toBe(200);
    const done = await processed(sid);
    expect(done).toMatchObject({ status: 'done', last_error: null });
    const mediaCall = vendor.calls.find((c) => c.method === 'GET' && mediaUrl.endsWith(c.path))!;
    expect(mediaCall.headers.authorization).toBe(`Basic ${Buffer.from(`${OWN.sid}:${OWN.token}`).toString('base64')}`);
    expect(vendor.cdnCalls.every((c) => c.headers.authorization === undefined)).toBe(true);
    const [artifact] = await rows<{ storage_key: string }>(
      db.root.execute(sql`select storage_key from conversation_artifacts where conversation_id = ${done.conversation_id} order by created_at desc limit 1`),
    );
    expect((await storage.get(artifact!.storage_key)).equals(JPEG)).toBe(true);
    await expectOneReply(done.conversation_id!, done.message_id!, OWN, CLIENT, OWN_SMS);

    // WhatsApp on the own account: the reply leaves from the own WhatsApp sender.
    const wa = payload('whatsapp-inbound.json', { AccountSid: OWN.sid, To: OWN_WHATSAPP, From: CLIENT_WHATSAPP, MessageSid: 'SMown0000000000000000000000000007' });
    expect((await deliver(wa, OWN.token)).status).toBe(200);
    const waDone = await processed(wa.MessageSid!);
    expect(waDone.status).toBe('done');
    await expectOneReply(waDone.conversation_id!, waDone.message_id!, OWN, CLIENT_WHATSAPP, OWN_WHATSAPP);

    // On its own account the whitelist filters senders; the pool no longer routes to this org.
    const stranger = base({ MessageSid: 'SMown0000000000000000000000000008', From: '+14017120000' });
    expect((await deliver(stranger, OWN.token)).status).toBe(200);
    expect(await processed(stranger.MessageSid!)).toMatchObject({ status: 'ignored', reason: 'sender_not_whitelisted' });
    const viaPool = payload('sms-inbound.json', { AccountSid: PLATFORM.sid, To: POOL_SMS, From: CLIENT, MessageSid: 'SMown0000000000000000000000000009' });
    expect((await deliver(viaPool, PLATFORM.token)).status).toBe(200);
    expect(await processed(viaPool.MessageSid!)).toMatchObject({ status: 'quarantined', reason: 'unresolved_org' });
    expect(vendor.violations).toEqual([]);
  });
});
