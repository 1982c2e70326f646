import { sql } from 'drizzle-orm';
import connector from 'botframework-connector';
import type { Activity, Attachment, FileDownloadInfo, Mention } from 'botframework-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACT_STORAGE, type ArtifactStorage } from '../../src/modules/conversations/artifacts.storage.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { CONNECTOR_SCOPE, startEnterpriseChatVendor, teamsFixture, type EnterpriseChatVendor } from '../support/enterprise-chat-vendor.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { connectVerified } from '../support/webhooks.js';

/**
 * enterprise-chat (Teams through the Bot Framework) contract: the documented sample activities
 * (fixtures) typed with botframework-schema, carried by a bearer token with the channel's
 * documented claims (proven acceptable to botframework-connector's own channel validation),
 * sent to the running app; the token request, the reply and the attachment downloads checked at
 * a loopback stand-in, the reply against what botframework-connector's ConnectorClient sends.
 */
const APP = { id: 'c9e8c047-2a74-40a2-b28a-b162d5f5327c', password: 'bot-app-password-0123456789' };
const BOT_ID = `28:${APP.id}`;
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const PASSWORD = 'demo1234';
const PDF = Buffer.from('%PDF-1.7\n% a contract to review\n%%EOF\n');
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('a photo of the part')]);

const { ChannelValidation, ConnectorClient, SimpleCredentialProvider } = connector;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function rows<T>(query: Promise<unknown>): Promise<T[]> {
  const result = await query;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

describe('enterprise-chat contract (botframework-schema activities, Bot Framework token, connector stand-in)', () => {
  let app: TestApp;
  let vendor: EnterpriseChatVendor;
  let db: DbService;
  let storage: ArtifactStorage;

  /** A documented sample activity with this test's connector, tenant, bot and a fresh id. */
  const sample = (fixture: string, id: string): Activity => {
    const activity = teamsFixture<Activity>(fixture);
    activity.id = id;
    activity.serviceUrl = vendor.serviceUrl;
    activity.conversation.tenantId = TENANT;
    (activity.channelData as { tenant: { id: string } }).tenant.id = TENANT;
    activity.recipient.id = BOT_ID;
    for (const entity of activity.entities ?? []) if (entity.type === 'mention' && (entity as Mention).mentioned.name === activity.recipient.name) (entity as Mention).mentioned.id = BOT_ID;
    return activity;
  };

  const deliver = async (activity: Activity, path: 'messages' | 'webhook' = 'messages') => {
    const token = await vendor.channelToken();
    // The token is one botframework-connector's own channel validation accepts (issuer, audience, endorsed key).
    ChannelValidation.OpenIdMetadataEndpoint = vendor.metadataUrl;
    const identity = await ChannelValidation.authenticateChannelToken(`Bearer ${token}`, new SimpleCredentialProvider(APP.id, APP.password), activity.channelId);
    expect(identity.isAuthenticated).toBe(true);
    return app.request('POST', `/api/channels/enterprise-chat/${path}`, { body: JSON.stringify(activity), headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } });
  };

  async function processed(activity: Activity) {
    const key = `${activity.conversation.id}:${activity.id}`;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const [row] = await rows<{ status: string; reason: string | null; conversation_id: string | null; message_id: string | null; last_error: string | null }>(
        db.root.execute(sql`select status, reason, conversation_id, message_id, last_error from inbound_events where channel = 'enterprise-chat' and event_key = ${key}`),
      );
      if (row && row.status !== 'queued' && row.status !== 'processing') return row;
      if (Date.now() > deadline) throw new Error(`activity ${key} not processed: ${JSON.stringify(row)}`);
      await sleep(100);
    }
  }

  async function artifactsOf(conversationId: string) {
    return rows<{ id: string; name: string; content_type: string; size: number; storage_key: string }>(
      db.root.execute(sql`select id, name, content_type, size, storage_key from conversation_artifacts where conversation_id = ${conversationId} order by created_at`),
    );
  }

  /** Exactly one Specialist reply, posted once to the connector as botframework-connector would post it. */
  async function expectOneReply(activity: Activity, conversationId: string, clientMessageId: string) {
    const deadline = Date.now() + 20_000;
    const mine = () => vendor.replies().filter((r) => r.activity.replyToId === activity.id);
    while (mine().length === 0) {
      if (Date.now() > deadline) throw new Error(`no reply to ${activity.id}: ${JSON.stringify(vendor.violations)}`);
      await sleep(100);
    }
    await sleep(300);
    const replies = await rows<{ content: string }>(
      db.root.execute(sql`select content from conversation_messages where conversation_id = ${conversationId} and role = 'specialist' and reply_to_message_id = ${clientMessageId}`),
    );
    expect(replies).toHaveLength(1);
    expect(mine()).toHaveLength(1);
    const sent = mine()[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.headers.authorization).toBe(`Bearer ${vendor.issued[0]}`);
    expect(sent.activity).toMatchObject({ type: 'message', text: replies[0]!.content, replyToId: activity.id, conversation: { id: activity.conversation.id }, from: { id: BOT_ID } });

    // The same call through botframework-connector's ConnectorClient: same path, same serialized Activity.
    const before = vendor.replies().length;
    const client = new ConnectorClient(
      { signRequest: async (request: { headers: { set(name: string, value: string): void } }) => (request.headers.set('authorization', `Bearer ${vendor.issued[0]}`), request) } as never,
      { baseUri: vendor.serviceUrl },
    );
    await client.conversations.replyToActivity(activity.conversation.id, activity.id!, sent.activity as Partial<Activity>);
    const sdk = vendor.replies()[before]!;
    expect(sent.path).toBe(sdk.path);
    expect(sent.activity).toEqual(sdk.activity);
  }

  beforeAll(async () => {
    vendor = await startEnterpriseChatVendor(APP);
    app = await startTestApp({
      env: {
        ENTERPRISE_CHAT_APP_ID: APP.id,
        ENTERPRISE_CHAT_APP_PASSWORD: APP.password,
        ENTERPRISE_CHAT_OPENID_METADATA_URL: vendor.metadataUrl,
        ENTERPRISE_CHAT_ISSUERS: vendor.issuer,
        ENTERPRISE_CHAT_TOKEN_URL: vendor.tokenUrl,
        ATTACHMENT_HOSTS: `${new URL(vendor.url).host},${new URL(vendor.filesUrl).host}`,
      },
    });
    db = app.running.app.get(DbService);
    storage = app.running.app.get<ArtifactStorage>(ARTIFACT_STORAGE);
    const am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    const acmeId = (await app.get('/api/auth/me', { token: await app.login('client@acme.demo.invalid', PASSWORD) })).body.orgMemberships[0].orgId;
    await connectVerified(app, acmeId, { channel: 'enterprise-chat', externalId: TENANT }, am);
  });
  afterAll(async () => {
    await app?.close();
    await vendor?.close();
  });

  it('a personal chat with a shared file: the file fetched from its pre-authenticated download URL (no token), kept with the right bytes; one reply through the connector', async () => {
    const activity = sample('personal-file.json', '1715677961123');
    const file = activity.attachments![0] as Attachment & { content: FileDownloadInfo };
    file.content.downloadUrl = vendor.addFile(file.content.uniqueId!, PDF);
    expect((await deliver(activity)).status).toBe(200);
    const done = await processed(activity);
    expect(done).toMatchObject({ status: 'done', last_error: null });

    const artifacts = await artifactsOf(done.conversation_id!);
    expect(artifacts).toHaveLength(1);
    expect(artifacts[0]).toMatchObject({ name: 'contract.pdf', content_type: 'application/pdf', size: PDF.length });
    expect((await storage.get(artifacts[0]!.storage_key)).equals(PDF)).toBe(true);
    expect(vendor.fileCalls).toHaveLength(1);
    expect(vendor.fileCalls[0]!.headers.authorization).toBeUndefined();
    const [client] = await rows<{ content: string }>(db.root.execute(sql`select content from conversation_messages where id = ${done.message_id}`));
    // The text/html copy of the body is no file; the text is the client's own.
    expect(client!.content).toBe(`Can you review the attached contract?\n[resource uri="artifact://${artifacts[0]!.id}" name="contract.pdf" mimeType="application/pdf" size="${PDF.length}"]`);

    await expectOneReply(activity, done.conversation_id!, done.message_id!);
    // The connector token came from the documented client-credentials request, once.
    const tokenCalls = vendor.calls.filter((c) => c.path === '/botframework.com/oauth2/v2.0/token');
    expect(tokenCalls).toHaveLength(1);
    expect(Object.fromEntries(new URLSearchParams(tokenCalls[0]!.body))).toEqual({ grant_type: 'client_credentials', client_id: APP.id, client_secret: APP.password, scope: CONNECTOR_SCOPE });
    expect(vendor.violations).toEqual([]);
  });

  it("a channel message mentioning the bot and a colleague, with an inline image: only the bot's mention stripped, the image fetched with the connector token; one reply in the thread", async () => {
    const activity = sample('channel-mention-image.json', '1715678403456');
    const image = activity.attachments![0]!;
    image.contentUrl = vendor.addImage('0-weu-d11-4c5e3f0a8b6d2e1f9a7c3b5d8e0f2a4c', PNG);
    expect((await deliver(activity, 'webhook')).status).toBe(200);
    const done = await processed(activity);
    expect(done).toMatchObject({ status: 'done', last_error: null });

    const artifacts = await artifactsOf(done.conversation_id!);
    expect(artifacts).toHaveLength(1);
    expect(artifacts[0]).toMatchObject({ name: 'image.png', content_type: 'image/png', size: PNG.length });
    expect((await storage.get(artifacts[0]!.storage_key)).equals(PNG)).toBe(true);
    const view = vendor.calls.find((c) => c.method === 'GET' && c.path.includes('/views/original'))!;
    expect(view.headers.authorization).toBe(`Bearer ${vendor.issued[0]}`);
    const [client] = await rows<{ content: string }>(db.root.execute(sql`select content from conversation_messages where id = ${done.message_id}`));
    expect(client!.content).toBe(
      `what is wrong with this part? Megan Bowen took the photo\n[resource uri="artifact://${artifacts[0]!.id}" name="image.png" mimeType="image/png" size="${PNG.length}"]`,
    );

    await expectOneReply(activity, done.conversation_id!, done.message_id!);
    expect(vendor.replies().find((r) => r.activity.replyToId === activity.id)!.path).toBe(`/emea/v3/conversations/${encodeURIComponent(activity.conversation.id)}/activities/${activity.id}`);
    expect(vendor.calls.filter((c) => c.path === '/botframework.com/oauth2/v2.0/token')).toHaveLength(1);
    expect(vendor.violations).toEqual([]);
  });
});
