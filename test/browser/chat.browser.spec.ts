import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSessions } from './support/sessions.js';

/**
 * The client chat as people expect it: the thread fills the window with the message box always in
 * view, the keyboard alone writes and sends, opens a thread, asks for a human and chooses a
 * Specialist (at a phone's, a laptop's and a desktop's size), the reply grows in one bubble and is announced, a
 * new client is welcomed by its Specialist, several Specialists can be chosen, the list searches
 * and filters from the address, one word per status on both sides, and one message costs no
 * reload storm. Every org here is made by the test (the demo's conversations are not relied on).
 */

const DEMO_PASSWORD = 'demo1234';
const AM_EMAIL = 'account_manager@platform.demo.invalid';
const EXPERT_EMAIL = 'expert@platform.demo.invalid';
const TIMEOUT = 20_000;
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
] as const;

const sessions = browserSessions();

async function call<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${sessions.baseUrl}/api${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  expect(response.status, `${method} ${path}: ${text}`).toBeLessThan(300);
  return (text ? JSON.parse(text) : undefined) as T;
}

async function login(email: string): Promise<string> {
  const response = await fetch(`${sessions.baseUrl}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password: DEMO_PASSWORD }) });
  return ((await response.json()) as { token: string }).token;
}

interface Org {
  orgId: string;
  client: string;
  /** The Specialists in the order they were assigned (the first is the primary). */
  specialists: { name: string; assignmentId: string }[];
}

let orgs = 0;

/** A new active org with the given catalog Specialists (by slug), the first primary, and a client's session. */
async function newOrg(specialistSlugs: string[]): Promise<Org> {
  const am = await login(AM_EMAIL);
  const slug = `chat-${Date.now().toString(36)}-${++orgs}`;
  const org = await call<{ id: string }>(am, 'POST', '/am/orgs', {
    legalName: `Chat ${slug}`,
    slug,
    industry: 'technology',
    corporateDomains: [`${slug}.example.com`],
    adminEmail: `admin@${slug}.example.com`,
    website: `https://${slug}.example.com`,
    timezone: 'Europe/Berlin',
  });
  const pool = (await call<{ items: Array<{ id: string; slug: string; name: string }> }>(am, 'GET', '/am/specialists')).items;
  for (const specialistSlug of specialistSlugs) await call(am, 'POST', `/am/orgs/${org.id}/specialist`, { specialistId: pool.find((s) => s.slug === specialistSlug)!.id });
  await call(am, 'POST', `/am/orgs/${org.id}/finish`, {});
  const demo = await fetch(`${sessions.baseUrl}/api/auth/demo-login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ role: 'client', orgSlug: slug }) });
  const { token } = (await demo.json()) as { token: string };
  const assigned = (await call<{ items: Array<{ name: string; assignmentId: string; isPrimary: boolean }> }>(token, 'GET', '/client/specialists')).items;
  return { orgId: org.id, client: token, specialists: assigned.map(({ name, assignmentId }) => ({ name, assignmentId })) };
}

/** The page's session is `token` (the web app keeps it in localStorage). */
async function signInWith(page: Page, token: string): Promise<void> {
  await page.addInitScript({ content: `localStorage.setItem('cos.token', ${JSON.stringify(token)});` });
}

/** A page signed in with `token` at a window size. */
async function clientPage(token: string, viewport: { width: number; height: number }): Promise<Page> {
  const page = await sessions.newPage();
  await page.setViewportSize(viewport);
  await signInWith(page, token);
  return page;
}

/** Resolves once the page's socket has joined the `/notifications` namespace. */
function socketJoined(page: Page): Promise<void> {
  return page
    .waitForEvent('websocket', { predicate: (socket) => socket.url().includes('/socket.io/'), timeout: TIMEOUT })
    .then((socket) => socket.waitForEvent('framereceived', { predicate: (frame) => String(frame.payload).startsWith('40/notifications,'), timeout: TIMEOUT }))
    .then(() => undefined);
}

/**
 * Runs in the page: keeps the streaming bubble's element as the open thread last showed it, to check
 * that the stored reply is the same element. A new conversation's thread opens on its own address
 * while the reply may already be on its way (a fast reply): the bubble shown before that is not
 * the thread's own.
 */
const WATCH_STREAMING_BUBBLE = `new MutationObserver(() => {
  const bubble = document.querySelector('[data-testid="conversation-thread"] [data-testid="streaming-reply"]');
  if (bubble) window.streamingBubble = bubble;
}).observe(document, { childList: true, subtree: true });`;

/** The streaming bubble the open thread showed, if any, is the stored reply's own element (it grew in place). */
const STREAMED_INTO = (replyId: string) =>
  `window.streamingBubble === undefined ? 'no bubble' : window.streamingBubble.isConnected && window.streamingBubble.getAttribute('data-id') === ${JSON.stringify(replyId)} ? 'grew in place' : 'replaced'`;

const focusedTestId = (page: Page) => page.evaluate<string | null>("document.activeElement?.getAttribute('data-testid') ?? null");

/** Presses Tab until the message box has the focus (keyboard only); fails after `limit` presses. */
async function tabToComposer(page: Page, limit = 60): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if ((await focusedTestId(page)) === 'composer-input') return;
  }
  throw new Error(`The message box was not reached with ${limit} presses of Tab`);
}

/**
 * Presses Tab until the focused element matches the CSS `selector` (keyboard only); fails after
 * `limit` presses.
 */
async function tabTo(page: Page, selector: string, limit = 80): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate<boolean>(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return;
  }
  throw new Error(`${selector} was not reached with ${limit} presses of Tab`);
}

/** The message box and the send button are inside the window, and the page itself does not scroll. */
async function expectComposerInView(page: Page, viewport: { width: number; height: number }): Promise<void> {
  const box = (await page.getByTestId('composer-input').boundingBox())!;
  const send = (await page.getByTestId('composer-send').boundingBox())!;
  expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
  expect(send.y + send.height).toBeLessThanOrEqual(viewport.height);
  expect(box.y).toBeGreaterThan(0);
  const page_ = await page.evaluate<{ scroll: number; inner: number; scrollY: number; wide: number; innerWidth: number }>(
    '({ scroll: document.documentElement.scrollHeight, inner: window.innerHeight, scrollY: window.scrollY, wide: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
  );
  expect(page_.scroll, 'the page has no scrollbar of its own').toBeLessThanOrEqual(page_.inner);
  expect(page_.scrollY).toBe(0);
  expect(page_.wide).toBeLessThanOrEqual(page_.innerWidth);
}

/** The serious and critical accessibility violations of the page, colour contrast included (axe-core, evaluated past the page's CSP). */
async function seriousViolations(page: Page): Promise<string[]> {
  const source = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  return page.evaluate<string[]>(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

describe('the client chat', () => {
  for (const viewport of VIEWPORTS) {
    it(`welcomes a new client, and writes, sends and announces with the keyboard only at ${viewport.width}x${viewport.height}`, async () => {
      const org = await newOrg(['omar-haddad']);
      const specialist = org.specialists[0]!;
      const page = await clientPage(org.client, viewport);
      await page.addInitScript({ content: WATCH_STREAMING_BUBBLE });
      const joined = socketJoined(page);
      await page.goto('/client/chat');

      // No conversation yet: the primary Specialist's welcome, with what it helps with, and the box to start.
      const welcome = page.getByTestId('welcome');
      await welcome.waitFor({ timeout: TIMEOUT });
      expect(await welcome.getByTestId('message-author').textContent()).toBe(specialist.name);
      const greeting = (await welcome.getByTestId('message-content').textContent())!;
      expect(greeting).toContain(`I'm ${specialist.name}, your Specialist`);
      expect(greeting).toContain('finance and bookkeeping');
      // No picture in the catalog: the Specialist's initials.
      expect(await page.locator('[data-testid="welcome"]').locator('xpath=..').getByTestId('avatar').first().textContent()).toBe('OH');
      await expectComposerInView(page, viewport);
      await joined;

      // The keyboard alone: Tab to the box, two lines with Shift+Enter, Enter sends.
      await tabToComposer(page);
      await page.keyboard.type('First line');
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.type('second line');
      expect(await page.getByTestId('composer-input').inputValue()).toBe('First line\nsecond line');
      await page.keyboard.press('Enter');

      // The conversation opened on its own address; the question is in, the reply grows in one bubble.
      await page.waitForURL((url) => url.searchParams.get('conversation')?.length === 36, { timeout: TIMEOUT });
      const thread = page.getByTestId('conversation-thread');
      const question = thread.locator('[data-testid="message"][data-role="client"]');
      await question.waitFor({ timeout: TIMEOUT });
      expect(await question.getByTestId('message-content').textContent()).toBe('First line\nsecond line');
      const reply = thread.locator('[data-testid="message"][data-role="specialist"]');
      await reply.waitFor({ timeout: TIMEOUT });
      await thread.getByTestId('streaming-reply').waitFor({ state: 'detached', timeout: TIMEOUT });
      expect(await reply.count()).toBe(1);
      const replyId = (await reply.getAttribute('data-id'))!;
      // A bubble that streamed in the open thread is the stored reply's own element: no second bubble.
      // (A reply stored before the new thread's first paint opens with it, with no bubble before.)
      expect(await page.evaluate<string>(STREAMED_INTO(replyId))).not.toBe('replaced');

      // Announced politely: the Specialist's name and the reply's beginning.
      const announcer = page.getByTestId('reply-announcer');
      expect(await announcer.getAttribute('aria-live')).toBe('polite');
      const replyText = (await reply.getByTestId('message-content').textContent())!;
      await expect.poll(() => announcer.textContent(), { timeout: TIMEOUT }).toContain(`${specialist.name} replied: ${replyText.replace(/\s+/g, ' ').slice(0, 40)}`);

      // The box emptied and kept the focus; it is still in view, the messages scroll inside.
      expect(await page.getByTestId('composer-input').inputValue()).toBe('');
      expect(await focusedTestId(page)).toBe('composer-input');
      await expectComposerInView(page, viewport);

      // Day separator, relative time with the exact time on hover, avatars: initials for both sides.
      expect(await thread.getByTestId('day-separator').first().textContent()).toBe('Today');
      const when = question.getByTestId('relative-time');
      expect(await when.textContent()).toBe('just now');
      expect(await when.getAttribute('title')).toMatch(/\d/);
      const bubbleAvatars = thread.getByTestId('thread-messages').getByTestId('avatar');
      const me = await call<{ name: string }>(org.client, 'GET', '/auth/me');
      const initials = me.name
        .split(/\s+/)
        .map((word) => word[0])
        .join('')
        .slice(0, 2)
        .toUpperCase();
      expect(await bubbleAvatars.allTextContents()).toEqual(expect.arrayContaining(['OH', initials]));

      expect(await seriousViolations(page)).toEqual([]);

      // Enter on an empty box sends nothing.
      await page.keyboard.press('Enter');
      expect(await thread.getByTestId('message').count()).toBe(2);

      if (viewport.width < 600) {
        // A phone shows the thread alone, with Back to the list (and the list alone then).
        expect(await page.getByTestId('conversation-list').count()).toBe(0);
        await page.getByRole('button', { name: 'Back to conversations' }).click();
        await page.getByTestId('conversation-list').waitFor();
        expect(await page.getByTestId('conversation-thread').count()).toBe(0);
        await page.getByTestId('conversation-item').click();
        await thread.waitFor();
        await page.goBack();
        await page.getByTestId('conversation-list').waitFor();
      } else {
        expect(await page.getByTestId('conversation-list').isVisible()).toBe(true);
      }
    });
  }

  for (const viewport of VIEWPORTS) {
    it(`opens a thread, asks for a human and starts a conversation with another Specialist with the keyboard only at ${viewport.width}x${viewport.height}`, async () => {
      const org = await newOrg(['omar-haddad', 'maya-chen']);
      const [primary, second] = org.specialists as [Org['specialists'][0], Org['specialists'][0]];
      const earlier = await call<{ id: string }>(org.client, 'POST', '/conversations', { subject: 'Quarter close', message: 'What do you need for the quarter close?' });
      const page = await clientPage(org.client, viewport);
      await page.goto('/client/chat');
      const item = `[data-testid="conversation-item"][data-id="${earlier.id}"]`;
      await page.locator(item).waitFor({ timeout: TIMEOUT });

      // Open the thread from the list.
      await tabTo(page, item);
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.searchParams.get('conversation') === earlier.id, { timeout: TIMEOUT });
      const thread = page.locator(`[data-testid="conversation-thread"][data-id="${earlier.id}"]`);
      await thread.locator('[data-testid="message"][data-role="specialist"]').waitFor({ timeout: TIMEOUT });

      // Ask for a human: the button, the reason in the dialog, the confirmation; asked once.
      await tabTo(page, '[data-testid="conversation-escalate"]');
      await page.keyboard.press('Enter');
      await tabTo(page, '[data-testid="escalate-reason"]');
      await page.keyboard.type('Please check the VAT figures');
      await tabTo(page, '[data-testid="escalate-confirm"]');
      await page.keyboard.press('Enter');
      await thread.getByTestId('escalated-notice').waitFor({ timeout: TIMEOUT });
      expect(await thread.getByTestId('conversation-escalate').count()).toBe(0);
      expect((await call<{ conversation: { status: string } }>(org.client, 'GET', `/conversations/${earlier.id}`)).conversation.status).toBe('pending');
      // Scanned once the dialog is gone: half-faded while it closes, its text would read as low contrast.
      await page.getByTestId('escalate-confirm').waitFor({ state: 'detached', timeout: TIMEOUT });
      expect(await seriousViolations(page)).toEqual([]);

      // A new conversation (back to the list first on a phone), to the second Specialist: the
      // arrow keys move the choice, as in any radio group; the choice is in the address.
      if (viewport.width < 600) {
        await tabTo(page, '[data-testid="thread-back"]');
        await page.keyboard.press('Enter');
      }
      await tabTo(page, '[data-testid="new-conversation"]');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.searchParams.get('conversation') === 'new', { timeout: TIMEOUT });
      await tabTo(page, '[data-testid="specialist-option"]');
      expect(await page.evaluate<string | null>("document.activeElement.getAttribute('aria-label')")).toBe(primary.name);
      await page.keyboard.press('ArrowRight');
      await page.waitForURL((url) => url.searchParams.get('specialist') === second.assignmentId, { timeout: TIMEOUT });
      await expect.poll(() => page.getByTestId('welcome').getByTestId('message-author').textContent(), { timeout: TIMEOUT }).toBe(second.name);
      expect(await page.locator(`[data-testid="specialist-option"][aria-label="${second.name}"]`).getAttribute('aria-checked')).toBe('true');

      await tabToComposer(page);
      await page.keyboard.type('Can you draft a newsletter?');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => (url.searchParams.get('conversation')?.length ?? 0) === 36 && url.searchParams.get('conversation') !== earlier.id, { timeout: TIMEOUT });
      const created = new URL(page.url()).searchParams.get('conversation')!;
      const stored = await call<{ conversation: { assignmentId: string } }>(org.client, 'GET', `/conversations/${created}`);
      expect(stored.conversation.assignmentId).toBe(second.assignmentId);
      await page.locator(`[data-testid="conversation-thread"][data-id="${created}"] [data-testid="message"][data-role="specialist"]`).waitFor({ timeout: TIMEOUT });
      await expectComposerInView(page, viewport);
      expect(await seriousViolations(page)).toEqual([]);
    });
  }

  for (const buffered of [false, true]) {
    it(`grows the reply in the bubble it was awaited in, in an open thread${buffered ? ', when the whole stream arrives at once (a buffering proxy)' : ''}`, async () => {
      const org = await newOrg(['omar-haddad']);
      const conversation = await call<{ id: string }>(org.client, 'POST', '/conversations', { message: 'Hello there' });
      const page = await clientPage(org.client, VIEWPORTS[1]);
      await page.addInitScript({ content: WATCH_STREAMING_BUBBLE });
      // Buffered: the question, the reply's words, the stored reply and the end reach the page in one piece.
      if (buffered) await page.route('**/messages/stream', async (route) => route.fulfill({ response: await route.fetch() }));
      await page.goto(`/client/chat?conversation=${conversation.id}`);
      const thread = page.locator(`[data-testid="conversation-thread"][data-id="${conversation.id}"]`);
      const replies = thread.locator('[data-testid="message"][data-role="specialist"]');
      await expect.poll(() => replies.count(), { timeout: TIMEOUT }).toBe(1);

      await page.getByTestId('composer-input').fill('What do you need from me for the quarter close?');
      await page.getByTestId('composer-send').click();
      await expect.poll(() => replies.count(), { timeout: TIMEOUT }).toBe(2);
      await thread.getByTestId('streaming-reply').waitFor({ state: 'detached', timeout: TIMEOUT });
      // The thread was open before the message left: its bubble showed, and the stored reply is that element.
      expect(await page.evaluate<string>(STREAMED_INTO((await replies.last().getAttribute('data-id'))!))).toBe('grew in place');
      expect(await replies.count()).toBe(2);
    });
  }

  it('lets a client with several Specialists choose who a new conversation goes to; the list names each Specialist', async () => {
    const org = await newOrg(['omar-haddad', 'maya-chen']);
    const [primary, second] = org.specialists as [Org['specialists'][0], Org['specialists'][0]];
    const page = await clientPage(org.client, VIEWPORTS[1]);
    await page.goto('/client/chat');
    const welcome = page.getByTestId('welcome');
    await welcome.waitFor({ timeout: TIMEOUT });
    expect(await welcome.getByTestId('message-author').textContent()).toBe(primary.name);

    // The other Specialist, chosen: its welcome, its skills; the choice is in the address.
    await page.getByRole('radio', { name: second.name }).click();
    await expect.poll(() => welcome.getByTestId('message-author').textContent(), { timeout: TIMEOUT }).toBe(second.name);
    expect(await welcome.getByTestId('message-content').textContent()).toContain('marketing');
    expect(new URL(page.url()).searchParams.get('specialist')).toBe(second.assignmentId);

    await page.getByTestId('composer-input').fill('Can you draft a newsletter?');
    await page.getByTestId('composer-send').click();
    await page.waitForURL((url) => url.searchParams.get('conversation')?.length === 36, { timeout: TIMEOUT });
    const conversationId = new URL(page.url()).searchParams.get('conversation')!;
    const stored = await call<{ conversation: { assignmentId: string; specialist: { name: string } } }>(org.client, 'GET', `/conversations/${conversationId}`);
    expect(stored.conversation).toMatchObject({ assignmentId: second.assignmentId, specialist: { name: second.name } });
    const thread = page.getByTestId('conversation-thread');
    await thread.locator('[data-testid="message"][data-role="specialist"]').waitFor({ timeout: TIMEOUT });
    expect(await thread.getByTestId('message-author').last().textContent()).toBe(second.name);

    // One with the primary too: the list shows each conversation's Specialist.
    await call(org.client, 'POST', '/conversations', { message: 'A question for the primary' });
    await page.reload();
    const items = page.getByTestId('conversation-item');
    await expect.poll(() => items.count(), { timeout: TIMEOUT }).toBe(2);
    expect((await page.getByTestId('conversation-item-specialist').allTextContents()).sort()).toEqual([primary.name, second.name].sort());
  });

  it('searches the conversations with the matches marked, and keeps the search, the filter and the open thread in the address', async () => {
    const org = await newOrg(['omar-haddad']);
    const found = await call<{ id: string }>(org.client, 'POST', '/conversations', { subject: 'Warehouse move', message: 'We need pallets for the warehouse in Rotterdam next week.' });
    await call(org.client, 'POST', '/conversations', { subject: 'Office chairs', message: 'Please order ten office chairs.' });
    const page = await clientPage(org.client, VIEWPORTS[1]);
    await page.goto('/client/chat');
    await expect.poll(() => page.getByTestId('conversation-item').count(), { timeout: TIMEOUT }).toBe(2);

    await page.getByRole('searchbox', { name: 'Search conversations' }).fill('rotterdam');
    await page.waitForURL((url) => url.searchParams.get('q') === 'rotterdam', { timeout: TIMEOUT });
    const results = page.getByTestId('search-results');
    await results.getByTestId('conversation-item').first().waitFor({ timeout: TIMEOUT });
    expect(await results.getByTestId('conversation-item').count()).toBe(1);
    expect(await results.getByTestId('conversation-item').getAttribute('data-id')).toBe(found.id);
    expect((await results.locator('mark').allTextContents()).map((text) => text.toLowerCase())).toContain('rotterdam');

    // Reload keeps the search; opening a result keeps it too; back returns to no thread open.
    await page.reload();
    await results.locator('mark').first().waitFor({ timeout: TIMEOUT });
    expect(await page.getByRole('searchbox', { name: 'Search conversations' }).inputValue()).toBe('rotterdam');
    await results.getByTestId('conversation-item').click();
    await page.waitForURL((url) => url.searchParams.get('conversation') === found.id && url.searchParams.get('q') === 'rotterdam');
    await page.locator(`[data-testid="conversation-thread"][data-id="${found.id}"]`).waitFor({ timeout: TIMEOUT });
    await page.goBack();
    await page.getByTestId('no-conversation-open').waitFor({ timeout: TIMEOUT });
    expect(new URL(page.url()).searchParams.get('q')).toBe('rotterdam');

    // The filter: a status in the address, read back after a reload.
    await page.getByRole('button', { name: 'Clear the search' }).click();
    await page.waitForURL((url) => !url.searchParams.has('q'));
    await call(org.client, 'PATCH', `/conversations/${found.id}/resolve`);
    await page.getByTestId('conversation-filter').selectOption('resolved');
    await page.waitForURL((url) => url.searchParams.get('status') === 'resolved');
    await page.reload();
    await expect.poll(() => page.getByTestId('conversation-item').count(), { timeout: TIMEOUT }).toBe(1);
    expect(await page.getByTestId('conversation-item').getAttribute('data-id')).toBe(found.id);
    expect(await page.getByTestId('conversation-filter').inputValue()).toBe('resolved');
    await page.goBack();
    await expect.poll(() => page.getByTestId('conversation-item').count(), { timeout: TIMEOUT }).toBe(2);
  });

  it('shows that a human was asked (after a reload too) and never asks twice; the status reads the same word for the client and the Expert', async () => {
    // The demo org: the demo Expert covers it.
    const client = await login('client@acme.demo.invalid');
    const conversation = await call<{ id: string }>(client, 'POST', '/conversations', { subject: 'Status words', message: 'Is this pending for both of us?' });
    const page = await clientPage(client, VIEWPORTS[0]);
    await page.goto(`/client/chat?conversation=${conversation.id}`);
    const thread = page.locator(`[data-testid="conversation-thread"][data-id="${conversation.id}"]`);
    await thread.waitFor({ timeout: TIMEOUT });

    await thread.getByTestId('conversation-escalate').click();
    await page.getByTestId('escalate-confirm').click();
    await thread.getByTestId('escalated-notice').waitFor({ timeout: TIMEOUT });
    expect(await thread.getByTestId('conversation-escalate').count()).toBe(0);
    await page.reload();
    await thread.getByTestId('escalated-notice').waitFor({ timeout: TIMEOUT });
    expect(await thread.getByTestId('conversation-escalate').count()).toBe(0);
    expect(await thread.getByTestId('escalated-notice').textContent()).toContain('A person from the team was asked');

    // The Expert's view of the same thread: the same status, the same word.
    const expert = await sessions.newPage();
    await signInWith(expert, await login(EXPERT_EMAIL));
    await expert.goto(`/workspace/queue/${conversation.id}`);
    const expertStatus = expert.getByTestId('thread-details').getByTestId('conversation-status');
    await expertStatus.waitFor({ timeout: TIMEOUT });
    const clientStatus = thread.getByTestId('conversation-status');
    expect(await clientStatus.getAttribute('data-status')).toBe('pending');
    expect(await expertStatus.getAttribute('data-status')).toBe('pending');
    expect(await clientStatus.textContent()).toBe(await expertStatus.textContent());
    // The client's page carries no engineering words.
    expect(((await page.locator('body').textContent()) ?? '').toLowerCase()).not.toMatch(/breaker|quarantine|slug|escalation/);
  });

  it('reads the list and the thread once at most after one message: no refetch storm', async () => {
    const org = await newOrg(['omar-haddad']);
    const conversation = await call<{ id: string }>(org.client, 'POST', '/conversations', { subject: 'Counting', message: 'A first message' });
    const page = await clientPage(org.client, VIEWPORTS[1]);
    const joined = socketJoined(page);
    await page.goto(`/client/chat?conversation=${conversation.id}`);
    const thread = page.locator(`[data-testid="conversation-thread"][data-id="${conversation.id}"]`);
    await thread.getByTestId('message').nth(1).waitFor({ timeout: TIMEOUT });
    await joined;
    // Joining the thread's room and connecting read the thread and list once more: let that pass.
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(1500);

    const reads: string[] = [];
    const onRequest = (request: Request) => {
      const url = new URL(request.url());
      if (request.method() === 'GET' && url.pathname.startsWith('/api/conversations')) reads.push(url.pathname + url.search);
    };
    page.on('request', onRequest);
    await page.getByTestId('composer-input').fill('A second message');
    await page.keyboard.press('Enter');
    await expect.poll(() => thread.locator('[data-testid="message"][data-role="specialist"]').count(), { timeout: TIMEOUT }).toBe(2);
    await thread.getByTestId('streaming-reply').waitFor({ state: 'detached', timeout: TIMEOUT });
    // Time for any late reload (pushes after the stream) to happen.
    await page.waitForTimeout(2500);
    page.off('request', onRequest);
    expect(reads.length, `reads after one message: ${reads.join(', ')}`).toBeLessThanOrEqual(1);
    // The list followed without a read: the thread is still listed, its last activity now.
    expect(await page.locator(`[data-testid="conversation-item"][data-id="${conversation.id}"] [data-testid="relative-time"]`).textContent()).toBe('just now');
  });
});
