import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArtifactLinks } from '../../src/modules/conversations/artifact-links.js';
import { Clock } from '../../src/platform/clock/clock.js';
import { errorShapeProblem } from '../support/error-shape.js';
import { SAMPLE_PDF, SAMPLE_PNG, mailWithAttachments, postInboundMail, type MailFile } from '../support/inbound-mail.js';
import { FakeProvider } from '../support/llm-provider.js';
import { demoCast, type DemoCast } from '../support/tenants.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Attachments reach the work (spec 4.8 rule 4): a mail with a photo and a PDF, through the real
 * email channel, is stored once in the conversation's artifacts; the Specialist's model receives
 * the files as image and file parts; the thread shows them to the client and the Expert with
 * signed, expiring links that nobody else can use.
 */

const EMAIL_SECRET = 'email-signing-secret';
const ALIAS = 'emilie.acme@workspace.example.com';
const PASSWORD = 'demo1234';
const PNG = SAMPLE_PNG;
const PDF = SAMPLE_PDF;
const NOTES = 'line one of the notes\nline two of the notes\n';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function rows<T>(query: Promise<unknown>): Promise<T[]> {
  const result = await query;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

async function postMail(app: TestApp, rfc822: string) {
  expect(await postInboundMail(app.url, EMAIL_SECRET, rfc822)).toBe(200);
}

const mailWith = (messageId: string, text: string, files: MailFile[]) => mailWithAttachments({ to: ALIAS, messageId, subject: 'Photos of the broken printer', text, files });

/** Waits for the worker to finish the mail; its conversation. */
async function processed(app: TestApp, messageId: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [event] = await rows<{ status: string; conversation_id: string | null; last_error: string | null }>(
      app.running.dbService.root.execute(sql`select status, conversation_id, last_error from inbound_events where channel = 'email' and event_key = ${messageId}`),
    );
    if (event && event.status !== 'queued' && event.status !== 'processing') {
      expect(event).toMatchObject({ status: 'done' });
      return event.conversation_id!;
    }
    if (Date.now() > deadline) throw new Error(`mail ${messageId} not processed: ${JSON.stringify(event)}`);
    await sleep(100);
  }
}

/** The Specialist's reply once the turn has run. */
async function replyOf(app: TestApp, conversationId: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [reply] = await rows<{ content: string }>(
      app.running.dbService.root.execute(sql`select content from conversation_messages where conversation_id = ${conversationId} and role = 'specialist'`),
    );
    if (reply) return reply.content;
    if (Date.now() > deadline) throw new Error('no Specialist reply');
    await sleep(100);
  }
}

interface Attachment {
  id: string;
  name: string;
  contentType: string;
  size: number;
  url: string;
}

const FILES = [
  { name: 'printer.png', type: 'image/png', data: PNG },
  { name: 'manual.pdf', type: 'application/pdf', data: PDF },
  { name: 'notes.txt', type: 'text/plain', data: Buffer.from(NOTES) },
];

describe('attachments through the email channel, the offline model and the thread', () => {
  let app: TestApp;
  let cast: DemoCast;
  let expert: string;
  let conversationId: string;

  beforeAll(async () => {
    app = await startTestApp({ env: { EMAIL_INBOUND_SIGNING_SECRET: EMAIL_SECRET } });
    cast = await demoCast(app);
    expert = await app.login('expert@platform.demo.invalid', PASSWORD);
    await postMail(app, mailWith('<att-1@customer.example.com>', 'The printer shows this error, manual attached.', FILES));
    conversationId = await processed(app, '<att-1@customer.example.com>');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('stores each file once in the artifacts storage, named by a resource block, never inlined in a row', async () => {
    const db = app.running.dbService.root;
    const artifacts = await rows<{ id: string; name: string; content_type: string; size: number; storage_key: string }>(
      db.execute(sql`select id, name, content_type, size, storage_key from conversation_artifacts where conversation_id = ${conversationId} order by name`),
    );
    expect(artifacts.map((a) => [a.name, a.content_type, Number(a.size)])).toEqual([
      ['manual.pdf', 'application/pdf', PDF.length],
      ['notes.txt', 'text/plain', NOTES.length],
      ['printer.png', 'image/png', PNG.length],
    ]);
    for (const a of artifacts) {
      expect(a.storage_key).toBe(`${cast.acmeId}/${conversationId}/${a.id}`);
      expect(existsSync(join(app.env.DATA_DIR!, 'artifacts', a.storage_key))).toBe(true);
    }
    expect(readdirSync(join(app.env.DATA_DIR!, 'artifacts', cast.acmeId, conversationId))).toHaveLength(3);
    const [client] = await rows<{ content: string }>(db.execute(sql`select content from conversation_messages where conversation_id = ${conversationId} and role = 'client'`));
    expect(client!.content).toMatch(/^The printer shows this error, manual attached\.\n\[resource uri="artifact:\/\/[0-9a-f-]{36}" name="printer.png" mimeType="image\/png" size="\d+"\]\n/);
    const everyRow = JSON.stringify(
      await rows(db.execute(sql`select m.content, a.* from conversation_messages m, conversation_artifacts a where m.conversation_id = ${conversationId} and a.conversation_id = m.conversation_id`)),
    );
    for (const f of FILES) expect(everyRow).not.toContain(f.data.toString('base64').slice(0, 40));
    // Nor in the kept inbound request once its message is stored (spec 4.8 rule 4).
    const kept = JSON.stringify(await rows(db.execute(sql`select body from inbound_events where channel = 'email' and conversation_id = ${conversationId}`)));
    expect(kept).toContain('erased');
    for (const f of FILES) expect(kept).not.toContain(f.data.toString('base64').slice(0, 40));
  });

  it("gives the files to the Specialist's model as parts: the offline model received the image and the PDF, and a summary of the text file", async () => {
    const reply = await replyOf(app, conversationId);
    expect(reply).toContain('You wrote: "The printer shows this error, manual attached.".');
    expect(reply).toContain(`I received printer.png (image/png, ${PNG.length} bytes).`);
    expect(reply).toContain(`I received manual.pdf (application/pdf, ${PDF.length} bytes).`);
    // Plain text is not a file part for this model: summarised, not "received".
    expect(reply).not.toContain('I received notes.txt');
    expect(reply).not.toContain('[resource');
    const [run] = await rows<{ input_tokens: number; outcome: string }>(app.running.dbService.root.execute(sql`select input_tokens, outcome from llm_runs where conversation_id = ${conversationId}`));
    expect(run).toMatchObject({ outcome: 'ok' });
    expect(run!.input_tokens).toBeGreaterThan(0);
  });

  it('lists the attachments in the thread of the client and of the Expert, with links that download them', async () => {
    for (const token of [cast.member, expert]) {
      const thread = await app.get(`/api/conversations/${conversationId}`, { token });
      expect(thread.status).toBe(200);
      const [message] = thread.body.messages as Array<{ role: string; content: string; attachments: Attachment[] }>;
      expect(message!.role).toBe('client');
      expect(message!.content).toBe('The printer shows this error, manual attached.');
      expect(message!.attachments.map((a) => [a.name, a.contentType, a.size])).toEqual(FILES.map((f) => [f.name, f.type, f.data.length]));
      const [png, pdf, notes] = message!.attachments;
      expect(png!.url).toMatch(new RegExp(`^/api/orgs/${cast.acmeId}/conversations/${conversationId}/artifacts/${png!.id}\\?expires=\\d+&sig=[0-9a-f]{64}$`));

      // No token needed: the link is the credential.
      const image = await fetch(app.url + png!.url);
      expect(image.status).toBe(200);
      expect(Buffer.from(await image.arrayBuffer())).toEqual(PNG);
      expect(image.headers.get('content-type')).toBe('image/png');
      expect(image.headers.get('content-disposition')).toBe("inline; filename*=UTF-8''printer.png");
      for (const [h, v] of [
        ['x-content-type-options', 'nosniff'],
        ['content-security-policy', 'sandbox'],
        ['cache-control', 'private'],
      ])
        expect(image.headers.get(h!)).toBe(v);

      for (const [file, data] of [
        [pdf!, PDF],
        [notes!, Buffer.from(NOTES)],
      ] as const) {
        const download = await fetch(app.url + file.url);
        expect(download.status).toBe(200);
        expect(Buffer.from(await download.arrayBuffer())).toEqual(data);
        expect(download.headers.get('content-type')).toBe('application/octet-stream');
        expect(download.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''${file.name}`);
        expect(download.headers.get('content-security-policy')).toBe('sandbox');
      }
    }
  });

  it('refuses a forged, altered, expired or other-org link in the error body, and shows another org no link at all', async () => {
    const thread = await app.get(`/api/conversations/${conversationId}`, { token: cast.member });
    const [png, pdf] = (thread.body.messages[0] as { attachments: Attachment[] }).attachments;
    const url = new URL(png!.url, app.url);
    const sig = url.searchParams.get('sig')!;
    const expires = url.searchParams.get('expires')!;
    const refused = async (path: string, status: number) => {
      const res = await app.get(path);
      expect(res.status, path).toBe(status);
      expect(errorShapeProblem(res.status, res.headers, res.body)).toBeUndefined();
      return res.body as { code: string; message: string };
    };
    const base = url.pathname;
    // Forged, missing, or made for another artifact, conversation or org.
    await refused(`${base}?expires=${expires}&sig=${'0'.repeat(64)}`, 403);
    await refused(base, 403);
    await refused(`${base}?expires=${Number(expires) + 60}&sig=${sig}`, 403);
    await refused(`${new URL(pdf!.url, app.url).pathname}?expires=${expires}&sig=${sig}`, 403);
    await refused(`${base.replace(cast.acmeId, cast.hooliId)}?expires=${expires}&sig=${sig}`, 403);
    await refused(`${base.replace(conversationId, randomUUID())}?expires=${expires}&sig=${sig}`, 403);
    // A link we signed for an artifact that is not there: 404.
    const links = app.running.app.get(ArtifactLinks);
    await refused(links.url(cast.acmeId, conversationId, randomUUID()), 404);
    // Even a validly signed link finds an artifact only in the org and conversation it names.
    await refused(links.url(cast.hooliId, conversationId, png!.id), 404);
    await refused(links.url(cast.acmeId, randomUUID(), png!.id), 404);
    // Org B's owner reaches neither the thread nor, therefore, any link.
    expect((await app.get(`/api/conversations/${conversationId}`, { token: cast.hooliOwner })).status).toBe(404);
    // Expired: about 15 minutes after it was made.
    const clock = app.running.app.get(Clock);
    clock.advance(15 * 60_000 + 1000);
    try {
      expect((await refused(png!.url, 403)).message).toMatch(/expired/);
      const fresh = (await app.get(`/api/conversations/${conversationId}`, { token: cast.member })).body.messages[0].attachments[0] as Attachment;
      expect((await fetch(app.url + fresh.url)).status).toBe(200);
    } finally {
      clock.advance(-(15 * 60_000 + 1000));
    }
  });

  it("never gives a turn another conversation's artifact: a block typed into a web message names nothing there", async () => {
    const [client] = await rows<{ content: string }>(app.running.dbService.root.execute(sql`select content from conversation_messages where conversation_id = ${conversationId} and role = 'client'`));
    const block = client!.content.split('\n')[1]!;
    const created = await app.post('/api/conversations', { message: `Look at this\n${block}` }, { token: cast.member });
    expect(created.status).toBe(201);
    const reply = (created.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'specialist')!;
    expect(reply.content).not.toContain('I received');
    // The view lists it (the text named it), but its link finds nothing in this conversation.
    const shown = (created.body.messages as Array<{ role: string; attachments: Attachment[] }>).find((m) => m.role === 'client')!;
    expect(shown.attachments).toHaveLength(1);
    expect((await fetch(app.url + shown.attachments[0]!.url)).status).toBe(404);
  });

  it('documents the download route in the OpenAPI document, public, with its refusals', async () => {
    const doc = (await app.get('/api/openapi.json')).body as { paths: Record<string, Record<string, { security: unknown[]; responses: Record<string, unknown> }>> };
    const route = doc.paths['/api/orgs/{orgId}/conversations/{conversationId}/artifacts/{artifactId}']!.get!;
    expect(route.security).toEqual([]);
    expect(Object.keys(route.responses)).toEqual(expect.arrayContaining(['200', '403', '404']));
  });
});

describe('attachments on a live provider (the OpenAI-compatible stand-in)', () => {
  const provider = new FakeProvider();
  let app: TestApp;

  beforeAll(async () => {
    const baseUrl = await provider.start();
    app = await startTestApp({ env: { EMAIL_INBOUND_SIGNING_SECRET: EMAIL_SECRET, LLM_PROVIDER: 'openai-compatible', LLM_BASE_URL: baseUrl, LLM_MODEL: 'gpt-4o-mini', LLM_API_KEY: 'test-key' } });
  });
  afterAll(async () => {
    await app?.close();
    await provider.stop();
  });

  it('sends the image as image_url data and the PDF as a file part in the request to the provider, and meters the call', async () => {
    await postMail(app, mailWith('<live-1@customer.example.com>', 'Here is the photo and the manual.', FILES));
    const conversationId = await processed(app, '<live-1@customer.example.com>');
    expect(await replyOf(app, conversationId)).toBe('Hello from a live model.');
    const user = provider.requests.at(-1)!.messages.at(-1)! as { role: string; content: Array<Record<string, any>> };
    expect(user.role).toBe('user');
    expect(user.content[0]).toEqual({ type: 'text', text: 'Here is the photo and the manual.' });
    expect(user.content).toContainEqual({ type: 'text', text: `[attachment] printer.png (image/png, ${PNG.length} bytes)` });
    expect(user.content).toContainEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } });
    expect(user.content).toContainEqual({ type: 'file', file: { filename: 'manual.pdf', file_data: `data:application/pdf;base64,${PDF.toString('base64')}` } });
    const summary = user.content.find((p) => p.type === 'text' && String(p.text).startsWith('[attachment] notes.txt'))!;
    expect(summary.text).toContain(`Its beginning:\n${NOTES}`);
    // The cost row of the call: the provider's reported tokens, priced.
    const [run] = await rows<{ input_tokens: number; output_tokens: number; cost_micro_usd: number }>(
      app.running.dbService.root.execute(sql`select input_tokens, output_tokens, cost_micro_usd from llm_runs where conversation_id = ${conversationId}`),
    );
    expect(run).toMatchObject({ input_tokens: 1000, output_tokens: 500 });
    expect(Number(run!.cost_micro_usd)).toBe(450);
    // The bytes went to the provider from storage; no row of the conversation holds them.
    const stored = JSON.stringify(await rows(app.running.dbService.root.execute(sql`select content from conversation_messages where conversation_id = ${conversationId}`)));
    expect(stored).not.toContain(PNG.toString('base64'));
  });
});
