import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import type { AddressObject, ParsedMail } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbService } from '../../src/platform/db/db.service.js';
import { setLogDestination } from '../../src/platform/observability/logger.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
const ALIAS = 'emilie.acme@workspace.example.com';
const CLIENT = 'carol@customer.example.com';
const EMAIL_SECRET = 'email-signing-secret-contract';
const MAILGUN_ROUTE = '/api/channels/email/forward/mime';

/** Mailgun's documented Route form (raw MIME, a URL ending in `mime`), with a signature of its signing key. */
const fixture = JSON.parse(readFileSync(new URL('../fixtures/vendors/mailgun/route-forward-mime.json', import.meta.url), 'utf8')) as { signingKey: string; form: Record<string, string> };

async function rows<T>(query: Promise<unknown>): Promise<T[]> {
  const result = await query;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const addresses = (a: AddressObject | AddressObject[] | undefined) => (Array.isArray(a) ? a : a ? [a] : []).flatMap((x) => x.value.map((v) => v.address));
const referencesOf = (m: ParsedMail) => (Array.isArray(m.references) ? m.references : m.references ? [m.references] : []);

/** A client's mail as a mail program writes it (nodemailer's MailComposer): raw MIME. */
function compose(options: Mail.Options): Promise<Buffer> {
  return new MailComposer({ from: `Carol Client <${CLIENT}>`, to: ALIAS, ...options }).compile().build();
}

/**
 * Email contract (issue 16): client mails composed as raw MIME arrive through the spec's signed
 * `{rawMessage}` route and through Mailgun's own Route webhook (multipart form, signed the way
 * Mailgun documents); replies leave through a loopback SMTP server and are read back as mail:
 * Message-ID, In-Reply-To, References (RFC 5322), Subject, To and From. One reply per client mail.
 */
describe('email contract: the signed {rawMessage} route and the Mailgun Route webhook; threading on the wire', () => {
  let app: TestApp;
  let db: DbService;
  let smtp: SmtpReceiver;
  const lines: string[] = [];

  function signedForm(fields: Record<string, string>, key = fixture.signingKey): Record<string, string> {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const token = randomBytes(25).toString('hex');
    return {
      ...fields,
      timestamp,
      token,
      signature: createHmac('sha256', key)
        .update(timestamp + token)
        .digest('hex'),
    };
  }

  async function postMailgun(fields: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    const res = await fetch(app.url + MAILGUN_ROUTE, { method: 'POST', body: form });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  const viaMailgun = (mime: Buffer, extra: Record<string, string> = {}) => postMailgun(signedForm({ ...fixture.form, 'body-mime': mime.toString('utf8'), ...extra }));

  function viaRawMessage(mime: Buffer) {
    const raw = JSON.stringify({ rawMessage: mime.toString('base64') });
    return app.request('POST', '/api/channels/email/inbound', {
      body: raw,
      headers: { 'content-type': 'application/json', 'x-email-signature': `sha256=${createHmac('sha256', EMAIL_SECRET).update(raw).digest('hex')}` },
    });
  }

  const delivered = (count: number) => smtp.delivered(count);

  async function processed(eventKey: string): Promise<{ status: string; conversation_id: string | null; reason: string | null }> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const [row] = await rows<{ status: string; conversation_id: string | null; reason: string | null }>(
        db.root.execute(sql`select status, conversation_id, reason from inbound_events where channel = 'email' and event_key = ${eventKey}`),
      );
      if (row && row.status !== 'queued' && row.status !== 'processing') return row;
      if (Date.now() > deadline) throw new Error(`event ${eventKey} not processed: ${JSON.stringify(row)}`);
      await sleep(100);
    }
  }

  const refusals = () =>
    lines.map((l) => JSON.parse(l) as { event?: string; channel?: string; reason?: string }).filter((l) => l.event === 'security.webhook_signature_invalid' && l.channel === 'email');

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    setLogDestination({ write: (line: string) => void lines.push(line) });
    app = await startTestApp({
      env: {
        LOG_LEVEL: 'warn',
        SMTP_URL: smtp.url,
        EMAIL_INBOUND_SIGNING_SECRET: EMAIL_SECRET,
        MAILGUN_WEBHOOK_SIGNING_KEY: fixture.signingKey,
      },
    });
    db = app.running.app.get(DbService);
  });
  afterAll(async () => {
    await app?.close();
    setLogDestination(undefined);
    await smtp?.close();
  });

  it('refuses what Mailgun did not sign (unsigned, another key, stale, a replayed token) with 401 and a security event, an oversize form with 413; stores nothing', async () => {
    const mime = await compose({ subject: 'Forged', text: 'not from Mailgun', messageId: '<forged@customer.example.com>' });
    const fields: Record<string, string> = { ...fixture.form, 'body-mime': mime.toString('utf8') };
    // The documented sample itself: correctly signed, but its timestamp is long past.
    expect((await postMailgun(fixture.form)).status).toBe(401);
    const { timestamp: _timestamp, token: _token, signature: _signature, ...unsigned } = fields;
    expect((await postMailgun(unsigned)).status).toBe(401);
    expect((await postMailgun(signedForm(fields, 'another-key'))).status).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 301;
    const staleToken = randomBytes(25).toString('hex');
    expect(
      (await postMailgun({ ...fields, timestamp: String(stale), token: staleToken, signature: createHmac('sha256', fixture.signingKey).update(`${stale}${staleToken}`).digest('hex') })).status,
    ).toBe(401);
    // Anything but a multipart form carries no signature.
    expect((await app.request('POST', MAILGUN_ROUTE, { body: JSON.stringify(fields), headers: { 'content-type': 'application/json' } })).status).toBe(401);
    const answer = await postMailgun(signedForm(fields, 'another-key'));
    expect(answer.body).toMatchObject({ statusCode: 401, code: 'unauthorized' });
    expect(await rows(db.root.execute(sql`select id from inbound_events where event_key = '<forged@customer.example.com>'`))).toEqual([]);

    // A signed call is accepted once; its token replayed (the signature covers no message) is refused.
    const genuine = signedForm({ ...fixture.form, 'body-mime': (await compose({ subject: 'Once', text: 'first use of a token', messageId: '<token-once@customer.example.com>' })).toString('utf8') });
    expect(await postMailgun(genuine)).toMatchObject({ status: 200, body: { ok: true } });
    const replayed = await postMailgun({ ...genuine, 'body-mime': mime.toString('utf8') });
    expect(replayed.status).toBe(401);
    expect(await rows(db.root.execute(sql`select id from inbound_events where event_key = '<forged@customer.example.com>'`))).toEqual([]);
    expect(refusals().map((r) => r.reason)).toEqual(expect.arrayContaining(['mailgun_signature', 'mailgun_token_replayed']));

    // Over Mailgun's own 25 MB message limit: 413 in the error body, nothing kept; a broken form: 400.
    const huge = await postMailgun(signedForm({ ...fixture.form, 'body-mime': `Message-ID: <huge@customer.example.com>\r\n\r\n${'a'.repeat(25 * 1024 * 1024)}` }));
    expect(huge).toMatchObject({ status: 413, body: { statusCode: 413, code: 'payload_too_large' } });
    expect(await rows(db.root.execute(sql`select id from inbound_events where event_key = '<huge@customer.example.com>'`))).toEqual([]);
    const broken = await app.request('POST', MAILGUN_ROUTE, { body: '--b\r\nContent-Disposition: form-data; name="token"\r\n\r\nabc', headers: { 'content-type': 'multipart/form-data; boundary=b' } });
    expect(broken.status).toBe(400);
    expect(lines.join('\n')).not.toContain(fixture.signingKey);
    await processed('<token-once@customer.example.com>');
  });

  it('threads a conversation across both doors: replies In-Reply-To the mail they answer, References per RFC 5322, one Re:, one reply per mail', async () => {
    const sentBefore = (await delivered(1)).length;
    // 1. A new mail with an attachment, through Mailgun.
    const first = await compose({
      subject: 'Invoice question',
      text: 'Hello, can you check the attached invoice?',
      messageId: '<c1@customer.example.com>',
      attachments: [{ filename: 'invoice.txt', content: 'Invoice 42: 100 EUR' }],
    });
    expect(await viaMailgun(first)).toMatchObject({ status: 200, body: { ok: true } });
    const opened = await processed('<c1@customer.example.com>');
    expect(opened.status).toBe('done');
    const conversationId = opened.conversation_id!;
    const artifacts = await rows<{ name: string; size: number }>(db.root.execute(sql`select name, size from conversation_artifacts where conversation_id = ${conversationId}`));
    expect(artifacts).toEqual([{ name: 'invoice.txt', size: 'Invoice 42: 100 EUR'.length }]);
    const answer1 = (await delivered(sentBefore + 1))[sentBefore]!;
    expect(answer1.messageId).toMatch(/^<[0-9a-f-]{36}@workspace\.example\.com>$/);
    expect(answer1).toMatchObject({ inReplyTo: '<c1@customer.example.com>', subject: 'Re: Invoice question' });
    expect(referencesOf(answer1)).toEqual(['<c1@customer.example.com>']);
    expect(addresses(answer1.to)).toEqual([CLIENT]);
    expect(addresses(answer1.from)).toEqual([ALIAS]);

    // 2. The client answers our reply, naming only it, through the signed {rawMessage} route.
    const second = await compose({ subject: 'Re: Re: Invoice question', text: 'Thanks, and the due date?', messageId: '<c2@customer.example.com>', inReplyTo: answer1.messageId });
    expect((await viaRawMessage(second)).status).toBe(200);
    expect(await processed('<c2@customer.example.com>')).toMatchObject({ status: 'done', conversation_id: conversationId });
    const answer2 = (await delivered(sentBefore + 2))[sentBefore + 1]!;
    expect(answer2).toMatchObject({ inReplyTo: '<c2@customer.example.com>', subject: 'Re: Invoice question' });
    expect(referencesOf(answer2)).toEqual([answer1.messageId, '<c2@customer.example.com>']);

    // 3. A reply with the whole chain, the alias only in the envelope (Bcc): Mailgun's recipient routes it.
    const chain = ['<c1@customer.example.com>', answer1.messageId!, '<c2@customer.example.com>', answer2.messageId!];
    const third = await compose({
      to: 'accounts@customer.example.com',
      bcc: ALIAS,
      subject: 'RE: Invoice question',
      text: 'Paid today.',
      messageId: '<c3@customer.example.com>',
      inReplyTo: answer2.messageId,
      references: chain,
    });
    expect(await viaMailgun(third, { recipient: ALIAS })).toMatchObject({ status: 200 });
    expect(await processed('<c3@customer.example.com>')).toMatchObject({ status: 'done', conversation_id: conversationId });
    const answer3 = (await delivered(sentBefore + 3))[sentBefore + 2]!;
    expect(answer3).toMatchObject({ inReplyTo: '<c3@customer.example.com>', subject: 'Re: Invoice question' });
    expect(referencesOf(answer3)).toEqual([...chain, '<c3@customer.example.com>']);
    expect(addresses(answer3.to)).toEqual([CLIENT]);
    expect(addresses(answer3.from)).toEqual([ALIAS]);

    // The same mail again through the other door is the same event: no second reply.
    expect((await viaRawMessage(third)).body).toMatchObject({ ok: true, duplicate: true });

    // 4. An Expert's follow-up answers no mail in particular: in reply to the latest one.
    const expert = await app.login('expert@platform.demo.invalid', PASSWORD);
    expect((await app.post(`/api/conversations/${conversationId}/messages`, { content: 'Our Expert confirms the payment.' }, { token: expert })).status).toBe(201);
    const followUp = (await delivered(sentBefore + 4))[sentBefore + 3]!;
    expect(followUp.text).toContain('Our Expert confirms the payment.');
    expect(followUp).toMatchObject({ inReplyTo: '<c3@customer.example.com>', subject: 'Re: Invoice question' });
    expect(referencesOf(followUp)).toEqual([...chain, '<c3@customer.example.com>']);

    // 5. The client answers the follow-up: same conversation, and the reply answers that latest mail.
    const fourth = await compose({
      subject: 'Re: Invoice question',
      text: 'Great, thank you.',
      messageId: '<c4@customer.example.com>',
      inReplyTo: followUp.messageId,
      references: [...chain, '<c3@customer.example.com>', followUp.messageId!],
    });
    expect((await viaRawMessage(fourth)).status).toBe(200);
    expect(await processed('<c4@customer.example.com>')).toMatchObject({ status: 'done', conversation_id: conversationId });
    const answer4 = (await delivered(sentBefore + 5))[sentBefore + 4]!;
    expect(answer4.inReplyTo).toBe('<c4@customer.example.com>');
    expect(referencesOf(answer4)).toEqual([...chain, '<c3@customer.example.com>', followUp.messageId, '<c4@customer.example.com>']);

    // Exactly one Specialist reply per client mail, and nothing more on the wire.
    const thread = await rows<{ role: string }>(db.root.execute(sql`select role from conversation_messages where conversation_id = ${conversationId} order by created_at, id`));
    expect(thread.map((m) => m.role)).toEqual(['client', 'specialist', 'client', 'specialist', 'client', 'specialist', 'expert', 'client', 'specialist']);
    await sleep(500);
    expect(smtp.received).toHaveLength(sentBefore + 5);
  });
});
