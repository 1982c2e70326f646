import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeldMailService } from '../../src/modules/channels/held-mail.service.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { rows, sleep } from '../support/inbound.js';
import { postInboundMail } from '../support/inbound-mail.js';
import { smtpTexts, startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { collect, connectSocket, waitFor, type TestSocket } from '../support/sockets.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
const ALIAS = 'emilie.acme@workspace.example.com';
const EMAIL_SECRET = 'email-signing-secret-held-mail';

type Message = { id: string; role: string; content: string; delivery?: string };

/**
 * Issue 17, spec 3.3: a reply written while the Specialist's mailbox is suspended is held, shown
 * to staff as held, and sent through SMTP when the mailbox is restored: in the order it was
 * written, once, however many workers release it.
 */
describe('mail held while a mailbox is suspended (spec 3.3)', () => {
  let app: TestApp;
  let smtp: SmtpReceiver;
  let db: DbService;
  let heldMail: HeldMailService;
  let am: string;
  let expert: string;
  const clients: string[] = [];
  let orgId: string;
  let assignmentId: string;
  let base: string;
  let conversationId: string;
  const sockets: TestSocket[] = [];

  const mailed = (marker: string) => smtpTexts(smtp).filter((text) => text.includes(marker));
  const followUp = async (content: string): Promise<Message> => {
    const res = await app.post(`/api/conversations/${conversationId}/messages`, { content }, { token: expert });
    expect(res.status).toBe(201);
    return res.body as Message;
  };
  const threadAs = async (token: string): Promise<Message[]> => (await app.get(`/api/conversations/${conversationId}?limit=200`, { token })).body.messages;
  const deliveryOf = async (ids: string[]) => {
    const byId = new Map((await threadAs(expert)).map((m) => [m.id, m.delivery]));
    return ids.map((id) => byId.get(id));
  };
  /** Clears the suspension in the database alone: a restore whose release job never ran (lost in a crash). */
  const restoredWithoutItsJob = () => db.root.execute(sql`update org_specialist_assignments set mailbox_suspended_at = null where id = ${assignmentId}`);

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    // The test runs the held-mail sweep itself: a period turning with the machine's clock would run
    // it between two of its steps (after the restore, before the sweep the test calls).
    app = await startTestApp({ periodic: false, env: { SMTP_URL: smtp.url, EMAIL_INBOUND_SIGNING_SECRET: EMAIL_SECRET } });
    db = app.running.app.get(DbService);
    heldMail = app.running.app.get(HeldMailService);
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    expert = await app.login('expert@platform.demo.invalid', PASSWORD);
    clients.push(await app.login('org_admin@acme.demo.invalid', PASSWORD), await app.login('client@acme.demo.invalid', PASSWORD));
    orgId = (await app.get('/api/auth/me', { token: clients[0] })).body.orgMemberships[0].orgId;
    const osas = (await app.get(`/api/am/orgs/${orgId}/specialist-assignments`, { token: am })).body.items as Array<{ id: string; email_alias: string }>;
    assignmentId = osas.find((o) => o.email_alias === ALIAS)!.id;
    base = `/api/am/orgs/${orgId}/specialist-assignments/${assignmentId}`;
    expect((await app.post(`${base}/provision`, undefined, { token: am })).status).toBe(202);
    const deadline = Date.now() + 20_000;
    while (!(await app.get(base, { token: am })).body.mailboxUserId) {
      if (Date.now() > deadline) throw new Error('the mailbox was not provisioned');
      await sleep(200);
    }
    // A client's mail opens the thread; the Specialist's answer goes out at once.
    const mail = [
      'From: Carol Client <carol@customer.example.com>',
      `To: ${ALIAS}`,
      'Subject: Our order',
      'Message-ID: <held-1@customer.example.com>',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Where is our order?',
      '',
    ].join('\r\n');
    expect(await postInboundMail(app.url, EMAIL_SECRET, mail)).toBe(200);
    await smtp.delivered(1);
    [{ conversation_id: conversationId }] = await rows<{ conversation_id: string }>(
      db,
      sql`select conversation_id from inbound_events where channel = 'email' and event_key = '<held-1@customer.example.com>'`,
    );
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await app?.close();
    await smtp?.close();
  });

  it('holds what is written while suspended, says so to staff only, and sends it on Restore in the order written, once', async () => {
    const staffSocket = await connectSocket(app.url, expert);
    const clientSocket = await connectSocket(app.url, clients[0]);
    sockets.push(staffSocket, clientSocket);
    expect(await staffSocket.emitWithAck('join_conversation', conversationId)).toEqual({ ok: true });
    expect(await clientSocket.emitWithAck('join_conversation', conversationId)).toEqual({ ok: true });
    const staffAdded = collect(staffSocket, 'workspace_message_added');
    const clientAdded = collect(clientSocket, 'workspace_message_added');
    const staffChanges = collect(staffSocket, 'message_delivery_changed');
    const clientChanges = collect(clientSocket, 'message_delivery_changed');

    expect((await app.post(`${base}/suspend`, undefined, { token: am })).status).toBe(200);
    const written = [
      await followUp('First held note: the order left the warehouse.'),
      await followUp('Second held note: tracking number follows.'),
      await followUp('Third held note: it arrives Monday.'),
    ];
    expect(written.map((m) => m.delivery)).toEqual(['held', 'held', 'held']);
    await sleep(1500);
    expect(mailed('held note')).toEqual([]);

    // Staff see each one held; the Specialist's earlier answer sent; a client message carries no delivery.
    const staffThread = await threadAs(expert);
    expect(staffThread.find((m) => m.role === 'specialist')!.delivery).toBe('sent');
    expect(staffThread.find((m) => m.role === 'client')!).not.toHaveProperty('delivery');
    expect(await deliveryOf(written.map((m) => m.id))).toEqual(['held', 'held', 'held']);
    await waitFor(() => staffAdded.length === 3 && clientAdded.length === 3);
    expect(staffAdded.map((e) => e.message.delivery)).toEqual(['held', 'held', 'held']);
    // Client roles never see it: REST threads, search, the pushed views.
    for (const token of clients) {
      const thread = await threadAs(token);
      expect(thread.length).toBeGreaterThanOrEqual(5);
      for (const message of thread) expect(message).not.toHaveProperty('delivery');
      const hits = (await app.get('/api/conversations/search?q=held', { token })).body.items as Array<{ matches: Message[] }>;
      expect(hits.flatMap((h) => h.matches).length).toBeGreaterThan(0);
      for (const match of hits.flatMap((h) => h.matches)) expect(match).not.toHaveProperty('delivery');
    }
    for (const event of clientAdded) expect(event.message).not.toHaveProperty('delivery');

    expect((await app.post(`${base}/restore`, undefined, { token: am })).status).toBe(200);
    await smtp.delivered(4);
    expect(
      smtpTexts(smtp)
        .slice(1)
        .map((text) => text.match(/(\w+) held note/)?.[1]),
    ).toEqual(['First', 'Second', 'Third']);
    await waitFor(() => staffChanges.length === 3);
    expect(staffChanges.map((c) => [c.messageId, c.delivery])).toEqual(written.map((m) => [m.id, 'sent']));
    expect(await deliveryOf(written.map((m) => m.id))).toEqual(['sent', 'sent', 'sent']);

    // Restore again is refused; the release run again (a retried job, another instance) sends nothing.
    expect((await app.post(`${base}/restore`, undefined, { token: am })).status).toBe(409);
    expect(await Promise.all([heldMail.release(orgId, assignmentId), heldMail.release(orgId, assignmentId)])).toEqual([0, 0]);
    await sleep(1500);
    expect(smtp.received).toHaveLength(4);
    for (const marker of ['First held', 'Second held', 'Third held']) expect(mailed(marker)).toHaveLength(1);
    expect(clientChanges).toEqual([]);
  });

  it('sends each held mail once and in order when several workers release it at the same time', async () => {
    const before = smtp.received.length;
    expect((await app.post(`${base}/suspend`, undefined, { token: am })).status).toBe(200);
    const written = [];
    for (const n of [1, 2, 3, 4, 5]) written.push(await followUp(`Concurrent note ${n} of 5.`));
    await restoredWithoutItsJob();
    const counts = await Promise.all([heldMail.release(orgId, assignmentId), heldMail.release(orgId, assignmentId), heldMail.release(orgId, assignmentId)]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(5);
    await smtp.delivered(before + 5);
    await sleep(1500);
    expect(
      smtpTexts(smtp)
        .slice(before)
        .map((text) => text.match(/Concurrent note (\d)/)?.[1]),
    ).toEqual(['1', '2', '3', '4', '5']);
    expect(await deliveryOf(written.map((m) => m.id))).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
    const statuses = await rows<{ status: string; attempts: number }>(
      db,
      sql`select status, attempts from outbound_messages where conversation_id = ${conversationId} and content like 'Concurrent note%'`,
    );
    expect(statuses).toEqual(Array(5).fill({ status: 'sent', attempts: 1 }));
  });

  it('a reply written after the mailbox is active again waits behind older held mail; the sweep releases what a lost job left', async () => {
    let before = smtp.received.length;
    expect((await app.post(`${base}/suspend`, undefined, { token: am })).status).toBe(200);
    await followUp('Older held A.');
    await followUp('Older held B.');
    await restoredWithoutItsJob();
    // Not suspended any more: this one goes to the dispatcher, which sends it after A and B.
    expect(['queued', 'held']).toContain((await followUp('Newer reply C.')).delivery);
    await smtp.delivered(before + 3);
    expect(
      smtpTexts(smtp)
        .slice(before)
        .map((text) => text.match(/(Older held \w|Newer reply \w)/)?.[1]),
    ).toEqual(['Older held A', 'Older held B', 'Newer reply C']);

    before = smtp.received.length;
    expect((await app.post(`${base}/suspend`, undefined, { token: am })).status).toBe(200);
    const stranded = await followUp('Stranded by a lost job.');
    expect(await heldMail.releaseStranded()).toBe(0);
    await restoredWithoutItsJob();
    await sleep(1000);
    expect(mailed('Stranded by a lost job')).toEqual([]);
    expect(await heldMail.releaseStranded()).toBe(1);
    await smtp.delivered(before + 1);
    expect(mailed('Stranded by a lost job')).toHaveLength(1);
    expect(await deliveryOf([stranded.id])).toEqual(['sent']);
  });
});
