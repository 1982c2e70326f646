import { readFile } from 'node:fs/promises';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SAMPLE_PDF, SAMPLE_PNG, mailWithAttachments, postInboundMail } from '../support/inbound-mail.js';
import { SCREEN_SIZES, horizontalOverflow, isFolded } from './support/screens.js';
import { browserSessions } from './support/sessions.js';

/**
 * The conversations feature in two browsers: a client chats with the Specialist (the reply
 * streamed) and asks for a human; the Expert picks the thread up from the attention list, writes
 * an internal note, a follow-up and a correction, and resolves it; the client's open page follows
 * every step live, sees the follow-up as the Specialist's and never the note. At a phone's, a
 * laptop's and a desktop's size: a phone shows the client's list or a thread, one at a time.
 */

const DEMO_PASSWORD = 'demo1234';
const CLIENT_EMAIL = 'client@acme.demo.invalid';
const EXPERT_EMAIL = 'expert@platform.demo.invalid';
const AM_EMAIL = 'account_manager@platform.demo.invalid';
const SPECIALIST = 'Émilie Laurent';
const EXPERT_NAME = 'Demo Expert';
const ORG_NAME = 'Acme Corporation';
const TIMEOUT = 15_000;

const SUBJECT = 'The printer on floor 3';
const QUESTION = 'Our printer on floor 3 jams on every page. Can you help?';
const ESCALATION_REASON = 'Please send a technician';
const NOTE = 'Internal: the maintenance contract covers a visit this week';
const FOLLOW_UP = 'A technician will visit tomorrow at 10:00.';
const CORRECTION = 'Hello, this is Émilie. A technician is on the way; no need to restart the printer.';

const EMAIL_SECRET = 'browser-email-signing-secret';
const ALIAS = 'emilie.acme@workspace.example.com';
const PNG = SAMPLE_PNG;
const PDF = SAMPLE_PDF;

const sessions = browserSessions({ env: { EMAIL_INBOUND_SIGNING_SECRET: EMAIL_SECRET } });

async function signIn(page: Page, email: string, landing: string): Promise<void> {
  await page.goto('/login');
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === landing, { timeout: TIMEOUT });
}

/** Resolves once the page's socket has joined the `/notifications` namespace. */
async function socketJoined(page: Page, onPath?: string): Promise<void> {
  // With `onPath`, only the socket of that page counts: the previous page's may open late (a busy landing) and close on navigation.
  const predicate = (socket: { url(): string }) => socket.url().includes('/socket.io/') && (!onPath || new URL(page.url()).pathname === onPath);
  const joined = page
    .waitForEvent('websocket', { predicate, timeout: TIMEOUT })
    .then((socket) => socket.waitForEvent('framereceived', { predicate: (frame) => String(frame.payload).startsWith('40/notifications,'), timeout: TIMEOUT }));
  return joined.then(() => undefined);
}

const messages = (scope: Page | Locator) => scope.locator('[data-testid="message"]');
const messageWith = (scope: Page | Locator, text: string) => messages(scope).filter({ hasText: text });
/** The client's own message (the offline reply quotes it). */
const question = (scope: Locator) => scope.locator('[data-testid="message"][data-role="client"]').filter({ hasText: QUESTION });

async function expectStatus(thread: Locator, status: string): Promise<void> {
  await thread.locator(`[data-testid="conversation-status"][data-status="${status}"]`).first().waitFor({ timeout: TIMEOUT });
}

/** A call of the API as `email` (for the set-up a test does not drive through the pages). */
async function api<T>(email: string, method: string, path: string, body?: unknown): Promise<T> {
  const login = await fetch(`${sessions.baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: DEMO_PASSWORD }),
  });
  const { token } = (await login.json()) as { token: string };
  const response = await fetch(`${sessions.baseUrl}/api${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return (await response.json()) as T;
}

/** `YYYY-MM-DDTHH:mm` in local time, as a datetime-local field takes it (the browser shares this machine's zone). */
function localDateTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

interface SseEvent {
  event: string;
  data: unknown;
}

function parseSse(body: string): SseEvent[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => ({ event: /^event: (.*)$/m.exec(block)![1]!, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) }));
}

interface RecordedStreams {
  streamBodies: string[];
}

/**
 * Runs in the page: keeps a copy of every server-sent event body the app reads through fetch (the
 * app reads its own copy as it arrives), since the browser does not keep a streamed body.
 */
function recordEventStreams(): void {
  const page = globalThis as unknown as RecordedStreams & { fetch: typeof fetch };
  page.streamBodies = [];
  const fetchOriginal = page.fetch.bind(page);
  page.fetch = async (...args: Parameters<typeof fetch>) => {
    const response = await fetchOriginal(...args);
    if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream')) return response;
    const [forApp, forTest] = response.body.tee();
    void new Response(forTest).text().then((text) => page.streamBodies.push(text));
    return new Response(forApp, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** On a phone the client's chat shows the list or a thread: back to the list from a thread. */
async function showClientList(client: Page, folded: boolean): Promise<void> {
  if (!folded) return;
  await client.getByRole('button', { name: 'Back to conversations', exact: true }).click();
  await client.getByTestId('conversation-list').waitFor({ timeout: TIMEOUT });
}

describe.each(SCREEN_SIZES)('conversations in the web app at $width x $height', (size) => {
  const folded = isFolded(size);

  it('streams the reply to a client, brings the escalation to the Expert, and keeps the client live', async () => {
    // The client starts a conversation from the chat page, under the trial banner's place.
    const client = await sessions.newPage(size);
    await client.addInitScript(recordEventStreams);
    const clientSocket = socketJoined(client);
    await signIn(client, CLIENT_EMAIL, '/client/chat');
    await client.getByRole('heading', { level: 1, name: 'Chat', exact: true }).waitFor();
    await clientSocket;
    await client.getByTestId('new-conversation').click();
    await client.getByTestId('new-conversation-subject').fill(SUBJECT);
    await client.getByTestId('composer-input').fill(QUESTION);

    const streamed = client.waitForResponse((response) => /\/api\/conversations\/[^/]+\/messages\/stream$/.test(new URL(response.url()).pathname), { timeout: TIMEOUT });
    await client.getByTestId('composer-send').click();
    const response = await streamed;
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toContain('text/event-stream');
    expect(response.request().resourceType()).toBe('fetch');
    await expect.poll(() => client.evaluate(() => (globalThis as unknown as RecordedStreams).streamBodies.length), { timeout: TIMEOUT }).toBe(1);
    const events = parseSse(await client.evaluate(() => (globalThis as unknown as RecordedStreams).streamBodies[0]!));
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(['message', 'delta', 'reply', 'done']));
    const reply = events.find((e) => e.event === 'reply')!.data as { id: string; content: string };
    const deltas = events.filter((e) => e.event === 'delta').map((e) => (e.data as { text: string }).text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(reply.content);
    expect(reply.content).toMatch(/offline/i);

    // The thread opened on its own address, with the question and the stored reply in place of the stream.
    await client.waitForURL((url) => url.searchParams.get('conversation')?.length === 36, { timeout: TIMEOUT });
    const conversationId = new URL(client.url()).searchParams.get('conversation')!;
    const clientThread = client.getByTestId('conversation-thread');
    await question(clientThread).waitFor({ timeout: TIMEOUT });
    const replyBubble = clientThread.locator(`[data-testid="message"][data-id="${reply.id}"]`);
    await replyBubble.waitFor({ timeout: TIMEOUT });
    expect(await replyBubble.getAttribute('data-role')).toBe('specialist');
    expect(await replyBubble.getByTestId('message-author').textContent()).toBe(SPECIALIST);
    expect(await replyBubble.getByTestId('message-content').textContent()).toBe(reply.content);
    await clientThread.getByTestId('streaming-reply').waitFor({ state: 'detached', timeout: TIMEOUT });
    expect(await messages(clientThread).count()).toBe(2);
    await expectStatus(clientThread, 'pending');
    // On a phone the list is one step back (and the thread opens again from it, the page never reloaded).
    await showClientList(client, folded);
    const listed = client.locator(`[data-testid="conversation-item"][data-id="${conversationId}"]`);
    await listed.waitFor({ timeout: TIMEOUT });
    expect(await listed.textContent()).toContain(SUBJECT);
    // The trial banner, when the org has one, stays at the top of the page.
    if ((await client.getByTestId('trial-banner').count()) > 0) {
      const [banner, list] = await Promise.all([client.getByTestId('trial-banner').boundingBox(), client.getByTestId('conversation-list').boundingBox()]);
      expect(banner!.y).toBeLessThan(list!.y);
    }
    if (folded) {
      await listed.click();
      await question(clientThread).waitFor({ timeout: TIMEOUT });
    }

    // The Expert opens the attention list: an ordinary reply put nothing there.
    const expert = await sessions.newPage(size);
    const expertSocket = socketJoined(expert);
    await signIn(expert, EXPERT_EMAIL, '/workspace/queue');
    await expert.getByRole('heading', { level: 1, name: 'Attention list', exact: true }).waitFor();
    await expertSocket;
    const queueItem = expert.locator(`[data-testid="queue-item"][data-conversation-id="${conversationId}"]`);
    await expert.locator('[data-testid="queue-table"], [data-testid="queue-empty"]').first().waitFor({ timeout: TIMEOUT });
    expect(await queueItem.count()).toBe(0);

    // The client asks for a human; the item reaches the Expert's open list without a reload.
    await client.evaluate('window.stillOpen = true');
    await clientThread.getByTestId('conversation-escalate').click();
    await client.getByTestId('escalate-reason').fill(ESCALATION_REASON);
    await client.getByTestId('escalate-confirm').click();
    await clientThread.getByTestId('escalated-notice').waitFor({ timeout: TIMEOUT });

    await queueItem.waitFor({ timeout: TIMEOUT });
    const row = await queueItem.textContent();
    for (const text of [SUBJECT, ORG_NAME, SPECIALIST, 'Escalation', ESCALATION_REASON]) expect(row).toContain(text);
    expect(await queueItem.getAttribute('data-status')).toBe('pending');
    expect(await queueItem.getByTestId('queue-sla').count()).toBe(1);
    await expert.getByTestId('queue-tab-pending').click();
    await queueItem.waitFor({ timeout: TIMEOUT });

    // The Expert opens the thread: the client's message and the Specialist's reply.
    await queueItem.getByTestId('queue-item-link').click();
    await expert.waitForURL((url) => url.pathname === `/workspace/queue/${conversationId}`, { timeout: TIMEOUT });
    const expertThread = expert.getByTestId('conversation-thread');
    await question(expertThread).waitFor({ timeout: TIMEOUT });
    await expertThread.locator(`[data-testid="message"][data-id="${reply.id}"]`).waitFor();
    expect(await expert.getByTestId('thread-details').textContent()).toContain(ORG_NAME);

    // Assign to me.
    await expert.getByTestId('assign-to-me').click();
    await expect.poll(() => expert.getByTestId('assigned-expert').textContent(), { timeout: TIMEOUT }).toBe('you');

    // An internal note, marked as such for staff.
    await expert.getByTestId('staff-composer-kind').getByText('Internal note', { exact: true }).click();
    await expert.getByTestId('staff-composer-input').fill(NOTE);
    await expert.getByTestId('staff-composer-send').click();
    const note = messageWith(expertThread, NOTE);
    await note.waitFor({ timeout: TIMEOUT });
    expect(await note.getAttribute('data-internal')).toBe('true');
    await note.getByTestId('internal-note-badge').waitFor();

    // A follow-up, written as the Specialist.
    await expert.getByTestId('staff-composer-kind').getByText('Follow-up', { exact: true }).click();
    await expert.getByTestId('staff-composer-input').fill(FOLLOW_UP);
    await expert.getByTestId('staff-composer-send').click();
    const followUp = messageWith(expertThread, FOLLOW_UP);
    await followUp.waitFor({ timeout: TIMEOUT });
    expect(await followUp.getAttribute('data-internal')).toBe('false');
    expect(await followUp.getByTestId('message-author').textContent()).toContain('follow-up by you');
    await expectStatus(expert.getByTestId('thread-details'), 'awaiting_client');

    // The client's page, never reloaded, shows the follow-up as Émilie's and moves to awaiting reply.
    const clientFollowUp = messageWith(clientThread, FOLLOW_UP);
    await clientFollowUp.waitFor({ timeout: TIMEOUT });
    expect(await clientFollowUp.getAttribute('data-role')).toBe('specialist');
    expect(await clientFollowUp.getByTestId('message-author').textContent()).toBe(SPECIALIST);
    await expectStatus(clientThread, 'awaiting_client');
    await clientThread.getByTestId('conversation-dismiss').waitFor({ timeout: TIMEOUT });

    // The Expert corrects the delivered reply; the client's copy is replaced in place.
    const expertReply = expertThread.locator(`[data-testid="message"][data-id="${reply.id}"]`);
    await expertReply.getByTestId('message-correct').click();
    await expertReply.getByTestId('correction-content').fill(CORRECTION);
    await expertReply.getByTestId('correction-reason').fill('Restarting does not help with jams');
    await expertReply.getByTestId('correction-save').click();
    await expertReply.getByTestId('message-corrected').waitFor({ timeout: TIMEOUT });
    expect(await expertReply.getByTestId('message-content').textContent()).toBe(CORRECTION);
    await expect.poll(() => replyBubble.getByTestId('message-content').textContent(), { timeout: TIMEOUT }).toBe(CORRECTION);
    await replyBubble.getByTestId('message-corrected').waitFor();
    expect(await messageWith(clientThread, CORRECTION).count()).toBe(1);

    // The Expert resolves; the client sees it live.
    await expert.getByTestId('status-select').selectOption('resolved');
    await expert.getByTestId('status-save').click();
    await expectStatus(expert.getByTestId('thread-details'), 'resolved');
    await expectStatus(clientThread, 'resolved');
    await clientThread.getByTestId('conversation-reopen').waitFor({ timeout: TIMEOUT });

    // The client never saw the note nor who wrote behind the Specialist, and never reloaded.
    const clientText = (await client.locator('body').textContent()) ?? '';
    expect(clientText).not.toContain(NOTE);
    expect(clientText).not.toContain(EXPERT_NAME);
    expect(await client.evaluate<boolean>('window.stillOpen === true')).toBe(true);
    expect(new URL(client.url()).searchParams.get('conversation')).toBe(conversationId);
    expect(await messages(clientThread).count()).toBe(3);
    // Neither page scrolls sideways at this size.
    expect(await horizontalOverflow(client), "the client's thread").toEqual({ overflow: 0, widest: [] });
    expect(await horizontalOverflow(expert), "the Expert's thread").toEqual({ overflow: 0, widest: [] });

    // Back on the list, the item is under Resolved.
    await expert.getByRole('link', { name: 'Back to the attention list', exact: true }).click();
    await expert.getByTestId('queue-tab-resolved').click();
    await expert.locator(`[data-testid="queue-item"][data-conversation-id="${conversationId}"][data-status="resolved"]`).waitFor({ timeout: TIMEOUT });
  });

  it('snoozes a thread until a chosen time, and lets the client dismiss an answered one and reopen it', async () => {
    const snoozed = await api<{ id: string }>(CLIENT_EMAIL, 'POST', '/conversations', { subject: 'Renew the domain', message: 'Can you renew our domain next month?' });
    await api(CLIENT_EMAIL, 'POST', `/conversations/${snoozed.id}/escalate`, {});
    const answered = await api<{ id: string }>(CLIENT_EMAIL, 'POST', '/conversations', { subject: 'Office hours', message: 'When is the office open?' });
    await api(EXPERT_EMAIL, 'POST', `/conversations/${answered.id}/messages`, { content: 'From 9 to 17, Monday to Friday.' });

    // The Expert snoozes the first thread until a local date and time two days ahead.
    const expert = await sessions.newPage(size);
    await signIn(expert, EXPERT_EMAIL, '/workspace/queue');
    await expert.goto(`/workspace/queue/${snoozed.id}`);
    const details = expert.getByTestId('thread-details');
    await expectStatus(details, 'pending');
    const until = new Date(Date.now() + 2 * 24 * 3600_000);
    until.setSeconds(0, 0);
    await expert.getByTestId('status-select').selectOption('snoozed');
    await expert.getByTestId('snooze-until').fill(localDateTime(until));
    await expert.getByTestId('status-save').click();
    await expectStatus(details, 'snoozed');
    const stored = await api<{ conversation: { status: string; snoozeUntil: string } }>(EXPERT_EMAIL, 'GET', `/conversations/${snoozed.id}`);
    expect(stored.conversation).toMatchObject({ status: 'snoozed', snoozeUntil: until.toISOString() });
    await expert.getByRole('link', { name: 'Back to the attention list', exact: true }).click();
    await expert.getByTestId('queue-tab-snoozed').click();
    await expert.locator(`[data-testid="queue-item"][data-conversation-id="${snoozed.id}"][data-status="snoozed"]`).waitFor({ timeout: TIMEOUT });

    // The client dismisses the answered thread, then reopens it.
    const client = await sessions.newPage(size);
    await signIn(client, CLIENT_EMAIL, '/client/chat');
    await client.locator(`[data-testid="conversation-item"][data-id="${answered.id}"]`).click();
    const thread = client.locator(`[data-testid="conversation-thread"][data-id="${answered.id}"]`);
    await expectStatus(thread, 'awaiting_client');
    await thread.getByTestId('conversation-dismiss').click();
    await expectStatus(thread, 'resolved');
    expect(await thread.getByTestId('conversation-dismiss').count()).toBe(0);
    await thread.getByTestId('conversation-reopen').click();
    await expectStatus(thread, 'pending');
    await showClientList(client, folded);
    await client.locator(`[data-testid="conversation-item"][data-id="${answered.id}"][data-status="pending"]`).waitFor({ timeout: TIMEOUT });
  });

  it("shows the attachments of a mail in the client's and the Expert's thread: a thumbnail that opens the image, a download link with name and size", async () => {
    // A client mails the Specialist's address with a photo and a PDF (the email channel, signed).
    const mail = mailWithAttachments({
      to: ALIAS,
      messageId: `<browser-attachments-${size.name}@customer.example.com>`,
      subject: `Photo of the jammed printer (${size.name})`,
      text: 'Here is a photo of the jam and the manual.',
      files: [
        { name: 'jam.png', type: 'image/png', data: PNG },
        { name: 'manual.pdf', type: 'application/pdf', data: PDF },
      ],
    });
    expect(await postInboundMail(sessions.baseUrl, EMAIL_SECRET, mail)).toBe(200);
    // The worker stores the files and the Specialist answers: the thread has its reply.
    let conversationId = '';
    await expect
      .poll(
        async () => {
          const list = await api<{ items: Array<{ id: string; subject: string | null }> }>(CLIENT_EMAIL, 'GET', '/conversations');
          conversationId = list.items.find((c) => c.subject === `Photo of the jammed printer (${size.name})`)?.id ?? '';
          if (!conversationId) return 0;
          return (await api<{ messages: unknown[] }>(CLIENT_EMAIL, 'GET', `/conversations/${conversationId}`)).messages.length;
        },
        { timeout: TIMEOUT },
      )
      .toBe(2);

    const client = await sessions.newPage(size);
    await signIn(client, CLIENT_EMAIL, '/client/chat');
    await client.locator(`[data-testid="conversation-item"][data-id="${conversationId}"]`).click();
    const clientThread = client.locator(`[data-testid="conversation-thread"][data-id="${conversationId}"]`);
    const expert = await sessions.newPage(size);
    await signIn(expert, EXPERT_EMAIL, '/workspace/queue');
    await expert.goto(`/workspace/queue/${conversationId}`);
    const expertThread = expert.getByTestId('conversation-thread');

    for (const [page, thread] of [
      [client, clientThread],
      [expert, expertThread],
    ] as const) {
      const mailed = thread.locator('[data-testid="message"][data-role="client"]');
      await mailed.waitFor({ timeout: TIMEOUT });
      expect(await mailed.getByTestId('message-content').textContent()).toBe('Here is a photo of the jam and the manual.');
      // The model saw both files (the offline model says so in its reply).
      await messageWith(thread, 'I received jam.png (image/png').waitFor({ timeout: TIMEOUT });
      expect(await messageWith(thread, 'I received manual.pdf (application/pdf').count()).toBe(1);
      expect(await thread.textContent()).not.toContain('[resource');

      // The image as a thumbnail, loaded by the browser through its signed link.
      const thumbnail = mailed.locator('[data-testid="attachment-image"][data-name="jam.png"] img');
      await thumbnail.waitFor({ timeout: TIMEOUT });
      await expect
        .poll(() => thumbnail.evaluate((img) => ((img as unknown as { complete: boolean }).complete ? (img as unknown as { naturalWidth: number }).naturalWidth : 0)), { timeout: TIMEOUT })
        .toBe(2);
      expect(await thumbnail.getAttribute('alt')).toBe('jam.png');
      // It opens the full image in a new tab.
      const [opened] = await Promise.all([page.context().waitForEvent('page'), mailed.locator('[data-testid="attachment-image"]').click()]);
      await opened.waitForLoadState();
      expect(new URL(opened.url()).pathname).toMatch(new RegExp(`/api/orgs/[0-9a-f-]+/conversations/${conversationId}/artifacts/[0-9a-f-]+$`));
      await expect.poll(() => opened.evaluate<number>("document.querySelector('img')?.naturalWidth ?? 0"), { timeout: TIMEOUT }).toBe(2);
      await opened.close();

      // The PDF as a download link with its name and size; the link downloads the file.
      const link = mailed.locator('[data-testid="attachment-file"][data-name="manual.pdf"]');
      expect(await link.textContent()).toBe('manual.pdf');
      expect(await link.locator('xpath=..').textContent()).toContain(`${PDF.length} bytes`);
      const [download] = await Promise.all([page.waitForEvent('download', { timeout: TIMEOUT }), link.click()]);
      expect(download.suggestedFilename()).toBe('manual.pdf');
      expect(await readFile((await download.path())!)).toEqual(PDF);
    }
  });

  it("shows the Expert a reply held while the Specialist's mailbox is suspended, and sent once it is restored; the client sees neither", async () => {
    const mail = [
      'From: Carol Client <carol@customer.example.com>',
      `To: ${ALIAS}`,
      `Subject: Toner order (${size.name})`,
      `Message-ID: <browser-held-${size.name}@customer.example.com>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Can you order toner?',
      '',
    ].join('\r\n');
    expect(await postInboundMail(sessions.baseUrl, EMAIL_SECRET, mail)).toBe(200);
    let conversationId = '';
    await expect
      .poll(
        async () =>
          (conversationId =
            (await api<{ items: Array<{ id: string; subject: string | null }> }>(EXPERT_EMAIL, 'GET', '/conversations')).items.find((c) => c.subject === `Toner order (${size.name})`)?.id ?? ''),
        { timeout: TIMEOUT },
      )
      .not.toBe('');
    // The AM provisions the Specialist's mailbox, then suspends it.
    const orgId = (await api<{ orgMemberships: Array<{ orgId: string }> }>(CLIENT_EMAIL, 'GET', '/auth/me')).orgMemberships[0]!.orgId;
    const osa = (await api<{ items: Array<{ id: string; email_alias: string; mailboxUserId: string | null }> }>(AM_EMAIL, 'GET', `/am/orgs/${orgId}/specialist-assignments`)).items.find(
      (o) => o.email_alias === ALIAS,
    )!;
    const base = `/am/orgs/${orgId}/specialist-assignments/${osa.id}`;
    if (!osa.mailboxUserId) await api(AM_EMAIL, 'POST', `${base}/provision`);
    await expect.poll(async () => (await api<{ mailboxUserId: string | null }>(AM_EMAIL, 'GET', base)).mailboxUserId, { timeout: TIMEOUT }).not.toBeNull();
    // The Specialist's answer to the mail has gone out before the mailbox is suspended (else it is held too).
    await expect
      .poll(
        async () =>
          (await api<{ messages: Array<{ role: string; delivery?: string }> }>(EXPERT_EMAIL, 'GET', `/conversations/${conversationId}`)).messages.find((m) => m.role === 'specialist')?.delivery ?? '',
        { timeout: TIMEOUT },
      )
      .toBe('sent');
    await api(AM_EMAIL, 'POST', `${base}/suspend`);

    const expert = await sessions.newPage(size);
    await signIn(expert, EXPERT_EMAIL, '/workspace/queue');
    const live = socketJoined(expert, `/workspace/queue/${conversationId}`);
    await expert.goto(`/workspace/queue/${conversationId}`);
    await live;
    const thread = expert.getByTestId('conversation-thread');
    const followUp = await api<{ id: string }>(EXPERT_EMAIL, 'POST', `/conversations/${conversationId}/messages`, { content: 'Toner is ordered; it ships Friday.' });
    const held = thread.locator(`[data-testid="message"][data-id="${followUp.id}"] [data-testid="message-delivery"]`);
    await held.and(expert.locator('[data-delivery="held"]')).waitFor({ timeout: TIMEOUT });
    expect(await held.textContent()).toBe('Held — mailbox suspended');
    // The Specialist's earlier answer went out.
    expect(await thread.locator('[data-testid="message"][data-role="specialist"] [data-testid="message-delivery"]').first().getAttribute('data-delivery')).toBe('sent');

    const client = await sessions.newPage(size);
    await signIn(client, CLIENT_EMAIL, '/client/chat');
    await client.locator(`[data-testid="conversation-item"][data-id="${conversationId}"]`).click();
    const clientThread = client.locator(`[data-testid="conversation-thread"][data-id="${conversationId}"]`);
    await messageWith(clientThread, 'Toner is ordered').waitFor({ timeout: TIMEOUT });
    expect(await clientThread.locator('[data-testid="message-delivery"]').count()).toBe(0);

    // Restored: the open page turns the badge to Sent without a reload.
    await api(AM_EMAIL, 'POST', `${base}/restore`);
    await held.and(expert.locator('[data-delivery="sent"]')).waitFor({ timeout: TIMEOUT });
    expect(await held.textContent()).toBe('Sent');
  });
});
