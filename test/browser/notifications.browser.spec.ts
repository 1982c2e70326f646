import type { Browser, BrowserContext, Page, WebSocket } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { SCREEN_SIZES, horizontalOverflow, isFolded, openMenu } from './support/screens.js';
import { startServer, type RunningServer } from './support/server.js';

const DEMO_PASSWORD = 'demo1234';
const CLIENT_EMAIL = 'client@acme.demo.invalid';
const AM_EMAIL = 'account_manager@platform.demo.invalid';
const EXPERT_EMAIL = 'expert@platform.demo.invalid';
/** Another client-role user, so that each test starts from a list of its own. */
const ORG_ADMIN_EMAIL = 'org_admin@acme.demo.invalid';
const TIMEOUT = 15_000;

interface NotificationDto {
  id: string;
  userId: string;
  type: string;
  message: string | null;
  title: string | null;
  meta: Record<string, unknown> | null;
  readAt: string | null;
}

let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];
/** The Socket.IO websockets the page opened, and every frame they received. */
let sockets: WebSocket[];
let framesReceived: string[];

beforeAll(async () => {
  server = await startServer();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

beforeEach(async () => {
  context = await browser.newContext({ baseURL: server.baseUrl });
  page = await context.newPage();
  pageErrors = [];
  sockets = [];
  framesReceived = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('websocket', (socket) => {
    if (!socket.url().includes('/socket.io/')) return;
    sockets.push(socket);
    socket.on('framereceived', (frame) => framesReceived.push(String(frame.payload)));
  });
});

afterEach(async () => {
  await context.close();
  expect(pageErrors, 'uncaught errors in the page').toEqual([]);
});

async function api<T>(method: string, path: string, token: string | null, body?: unknown): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${server.baseUrl}/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function apiLogin(email: string): Promise<string> {
  const response = await api<{ token: string }>('POST', '/auth/login', null, { email, password: DEMO_PASSWORD });
  expect(response.status, `POST /api/auth/login as ${email}`).toBe(200);
  return response.body.token;
}

async function userIdOf(token: string): Promise<string> {
  const response = await api<{ id: string }>('GET', '/auth/me', token);
  expect(response.status, 'GET /api/auth/me').toBe(200);
  return response.body.id;
}

/**
 * The demo data is alive (the demo users have notifications of their own): a test that counts
 * unread entries from zero first marks the user's existing ones read.
 */
async function markAllReadByApi(token: string): Promise<void> {
  const response = await api<{ updated: number }>('PATCH', '/notifications/read-all', token);
  expect(response.status, 'PATCH /api/notifications/read-all').toBe(200);
}

async function notify(senderToken: string, body: { userId: string; type: string; message: string; title?: string; meta?: Record<string, unknown> }) {
  const response = await api<NotificationDto>('POST', '/notifications', senderToken, body);
  expect(response.status, `POST /api/notifications ${JSON.stringify(response.body)}`).toBe(201);
  return response.body;
}

async function signInInBrowser(email: string, landing: string): Promise<void> {
  await page.goto('/login');
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === landing, { timeout: TIMEOUT });
}

/** Resolves once the page's socket has joined the `/notifications` namespace (Socket.IO packet `40/notifications,`). */
async function waitForLiveSocket(): Promise<void> {
  await expect.poll(() => framesReceived.some((frame) => frame.startsWith('40/notifications,')), { timeout: TIMEOUT }).toBe(true);
}

async function expectUnreadCount(count: number): Promise<void> {
  const badge = page.getByTestId('unread-count');
  if (count === 0) {
    await badge.waitFor({ state: 'detached', timeout: TIMEOUT });
  } else {
    await expect.poll(() => badge.textContent({ timeout: TIMEOUT }), { timeout: TIMEOUT }).toBe(String(count));
  }
}

const item = (title: string) => page.getByTestId('notification-item').filter({ hasText: title });

/** Resolves once the page's socket received `notification:new` for this notification. */
async function expectPushed(notification: NotificationDto): Promise<void> {
  const pushed = () => framesReceived.some((frame) => frame.includes('"notification:new"') && frame.includes(notification.id));
  await expect.poll(pushed, { timeout: TIMEOUT }).toBe(true);
}

describe.each(SCREEN_SIZES)('notifications in the web app at $width x $height', (size) => {
  beforeEach(async () => {
    await page.setViewportSize({ width: size.width, height: size.height });
  });
  /** The demo users' inboxes keep the entries of the other sizes: each size's words are its own. */
  const at = (text: string) => `${text} (${size.name})`;

  it('shows pushed notifications live to a client, files them under their tabs, and keeps them read', async () => {
    const clientToken = await apiLogin(CLIENT_EMAIL);
    const clientId = await userIdOf(clientToken);
    const amToken = await apiLogin(AM_EMAIL);
    await markAllReadByApi(clientToken);

    const listLoaded = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/notifications');
    await signInInBrowser(CLIENT_EMAIL, '/client/chat');
    await page.getByTestId('notification-bell').waitFor();
    expect((await listLoaded).status()).toBe(200);
    await waitForLiveSocket();
    await expectUnreadCount(0);

    // Pushed over the socket: the count follows without a reload.
    const system = await notify(amToken, {
      userId: clientId,
      type: 'system.test',
      title: at('Maintenance tonight'),
      message: 'The service restarts at 22:00.',
    });
    await expectPushed(system);
    await expectUnreadCount(1);
    const assignment = await notify(amToken, {
      userId: clientId,
      type: 'conversation.assigned',
      title: at('Conversation assigned'),
      message: 'An Expert took over your conversation.',
    });
    await expectPushed(assignment);
    await expectUnreadCount(2);
    expect(new URL(page.url()).pathname).toBe('/client/chat');

    // The bell lists the latest items and leads to the inbox.
    await page.getByTestId('notification-bell').click();
    const popover = page.getByTestId('notification-popover');
    await popover
      .getByTestId('notification-item')
      .filter({ hasText: at('Maintenance tonight') })
      .waitFor();
    await popover
      .getByTestId('notification-item')
      .filter({ hasText: at('Conversation assigned') })
      .waitFor();
    await popover.getByRole('link', { name: 'Open inbox', exact: true }).click();
    await popover.waitFor({ state: 'detached', timeout: TIMEOUT });
    await page.waitForURL((url) => url.pathname === '/client/inbox', { timeout: TIMEOUT });
    await page.getByRole('heading', { level: 1, name: 'Inbox', exact: true }).waitFor();

    // All holds both; each of the others holds what `inboxTabOf` files under it.
    await item(at('Maintenance tonight')).waitFor();
    await item(at('Conversation assigned')).waitFor();
    expect(await item(at('Maintenance tonight')).getAttribute('data-unread')).toBe('true');
    expect(await item(at('Maintenance tonight')).textContent()).toContain('The service restarts at 22:00.');
    expect(await horizontalOverflow(page), 'the inbox scrolls sideways').toEqual({ overflow: 0, widest: [] });

    await page.getByRole('tab', { name: /^Mentions/ }).click();
    await page.getByTestId('notifications-empty').waitFor();
    expect(await page.getByTestId('notification-item').count()).toBe(0);

    await page.getByRole('tab', { name: /^Assignments/ }).click();
    await item(at('Conversation assigned')).waitFor();
    expect(await item(at('Maintenance tonight')).count()).toBe(0);

    await page.getByRole('tab', { name: /^System/ }).click();
    await item(at('Maintenance tonight')).waitFor();
    expect(await item(at('Conversation assigned')).count()).toBe(0);

    // Mark read, one per tab: the count goes down, then away.
    await item(at('Maintenance tonight')).getByRole('button', { name: 'Mark read', exact: true }).click();
    await expectUnreadCount(1);
    await expect.poll(() => item(at('Maintenance tonight')).getAttribute('data-unread'), { timeout: TIMEOUT }).toBe('false');
    expect(await item(at('Maintenance tonight')).getByRole('button', { name: 'Mark read' }).count()).toBe(0);

    await page.getByRole('tab', { name: /^Assignments/ }).click();
    await item(at('Conversation assigned')).getByRole('button', { name: 'Mark read', exact: true }).click();
    await expectUnreadCount(0);

    // Still read after a reload, and on the server. The open tab is in the URL: the reload keeps it.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Inbox', exact: true }).waitFor();
    await item(at('Conversation assigned')).waitFor();
    expect(await page.getByRole('tab', { name: /^Assignments/ }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('tab', { name: /^All/ }).click();
    await item(at('Maintenance tonight')).waitFor();
    await item(at('Conversation assigned')).waitFor();
    expect(await item(at('Maintenance tonight')).getAttribute('data-unread')).toBe('false');
    expect(await item(at('Conversation assigned')).getAttribute('data-unread')).toBe('false');
    await expectUnreadCount(0);

    const stored = await api<NotificationDto[]>('GET', '/notifications?limit=10', clientToken);
    expect(stored.status).toBe(200);
    for (const id of [system.id, assignment.id]) {
      const readAt = stored.body.find((entry) => entry.id === id)?.readAt;
      expect(readAt, `readAt of ${id}`).toEqual(expect.any(String));
    }
  });

  it('lists a notification sent while the app was closed when it opens again (no replay)', async () => {
    const orgAdminToken = await apiLogin(ORG_ADMIN_EMAIL);
    const orgAdminId = await userIdOf(orgAdminToken);
    const amToken = await apiLogin(AM_EMAIL);
    await markAllReadByApi(orgAdminToken);

    await signInInBrowser(ORG_ADMIN_EMAIL, '/client/chat');
    await page.getByTestId('notification-bell').waitFor();
    await waitForLiveSocket();
    await expectUnreadCount(0);

    // Sent while the app is not open: the next visit lists it.
    await page.goto('about:blank');
    await notify(amToken, {
      userId: orgAdminId,
      type: 'billing.payment_failed',
      title: at('Payment failed'),
      message: 'Update your card.',
    });
    await page.goto('/client/inbox');
    await item(at('Payment failed')).waitFor({ timeout: TIMEOUT });
    await expectUnreadCount(1);
    await item(at('Payment failed')).getByRole('button', { name: 'Mark read', exact: true }).click();
    await expectUnreadCount(0);
  });

  it('gives an internal role the bell and its inbox in the popover, and closes the socket on sign out', async () => {
    const amToken = await apiLogin(AM_EMAIL);
    const amId = await userIdOf(amToken);
    await markAllReadByApi(amToken);

    await signInInBrowser(AM_EMAIL, '/ops/clients');
    await page.getByTestId('notification-bell').waitFor();
    await waitForLiveSocket();
    await expectUnreadCount(0);

    const pushed = await notify(amToken, {
      userId: amId,
      type: 'workspace_provisioning_failed',
      message: at('The mailbox of acme could not be created.'),
    });
    await expectPushed(pushed);
    await expectUnreadCount(1);

    await page.getByTestId('notification-bell').click();
    const popover = page.getByTestId('notification-popover');
    // No title: a plain heading stands in for it, never the type. Internal roles have no inbox page, so no link to one.
    const entry = popover.getByTestId('notification-item').filter({ hasText: at('The mailbox of acme could not be created.') });
    await entry.waitFor();
    expect(await entry.textContent()).not.toContain('workspace_provisioning_failed');
    expect(await popover.getByRole('link', { name: 'Open inbox' }).count()).toBe(0);
    await popover.getByRole('tab', { name: /^System/ }).click();
    await entry.getByRole('button', { name: 'Mark read', exact: true }).click();
    await expectUnreadCount(0);

    const open = sockets.filter((socket) => !socket.isClosed());
    expect(open.length, 'open notification sockets').toBe(1);
    await page.keyboard.press('Escape');
    // On a phone Sign out is in the menu.
    if (isFolded(size)) await openMenu(page);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/login', { timeout: TIMEOUT });
    await expect.poll(() => open[0]!.isClosed(), { timeout: TIMEOUT }).toBe(true);
  });
  it('shows when each entry came and what it is about, keeps the tab in the URL, and marks all read at once', async () => {
    const clientToken = await apiLogin(CLIENT_EMAIL);
    const clientId = await userIdOf(clientToken);
    const amToken = await apiLogin(AM_EMAIL);
    // The demo's own conversations: the notification leads to one of them.
    const conversations = await api<{ items: Array<{ id: string }> }>('GET', '/conversations?limit=5', clientToken);
    expect(conversations.status).toBe(200);
    const conversationId = conversations.body.items[0]?.id;
    expect(conversationId, 'a demo conversation of the client').toBeDefined();
    await notify(amToken, { userId: clientId, type: 'system.reply', title: at('A reply is waiting'), message: 'Open it to read.', meta: { conversationId } });
    await notify(amToken, { userId: clientId, type: 'billing.payment_failed', title: at('Card declined'), message: 'Update the card.', meta: { invoiceId: null } });

    await signInInBrowser(CLIENT_EMAIL, '/client/chat');
    await page.goto('/client/inbox');
    await item(at('A reply is waiting')).waitFor({ timeout: TIMEOUT });

    // The time: relative on the page, the exact time on hover (title and tooltip).
    const time = item(at('A reply is waiting')).getByTestId('notification-time');
    expect(await time.textContent()).toMatch(/^(just now|\d+ minutes? ago|1 minute ago)$/);
    const dateTime = await time.getAttribute('datetime');
    expect(Math.abs(Date.parse(dateTime!) - Date.now())).toBeLessThan(5 * 60_000);
    expect(await time.getAttribute('title')).toMatch(/\d{4}, \d{2}:\d{2}$/);
    await time.hover();
    await page
      .getByRole('tooltip')
      .filter({ hasText: (await time.getAttribute('title'))! })
      .waitFor({ timeout: TIMEOUT });

    // The links: to the conversation, and to billing.
    const toConversation = item(at('A reply is waiting')).getByRole('link', { name: 'Open the conversation', exact: true });
    expect(await toConversation.getAttribute('href')).toBe(`/client/chat?conversation=${conversationId}`);
    expect(await item(at('Card declined')).getByRole('link', { name: 'Open billing', exact: true }).getAttribute('href')).toBe('/client/settings/billing');

    // The tab is in the URL, and a reload keeps it.
    await page.getByRole('tab', { name: /^System/ }).click();
    await page.waitForURL((url) => url.searchParams.get('tab') === 'system', { timeout: TIMEOUT });
    await page.reload();
    await item(at('Card declined')).waitFor({ timeout: TIMEOUT });
    expect(await page.getByRole('tab', { name: /^System/ }).getAttribute('aria-selected')).toBe('true');
    await page.goto('/client/inbox');

    // Mark all read: every entry, at once; the server agrees.
    await item(at('A reply is waiting')).waitFor({ timeout: TIMEOUT });
    expect(await page.locator('[data-testid="notification-item"][data-unread="true"]').count()).toBeGreaterThanOrEqual(2);
    await page.getByRole('button', { name: 'Mark all read', exact: true }).first().click();
    await expectUnreadCount(0);
    await expect.poll(() => page.locator('[data-testid="notification-item"][data-unread="true"]').count(), { timeout: TIMEOUT }).toBe(0);
    expect(await page.getByRole('button', { name: 'Mark all read', exact: true }).first().isDisabled()).toBe(true);
    const stored = await api<NotificationDto[]>('GET', '/notifications?limit=200', clientToken);
    expect(stored.body.filter((entry) => entry.readAt === null)).toEqual([]);

    // Following the link opens the conversation.
    await toConversation.click();
    await page.waitForURL((url) => url.pathname === '/client/chat' && url.searchParams.get('conversation') === conversationId, { timeout: TIMEOUT });
  });

  it('tells the client live when an Expert answers in their conversation, as their Specialist, and the entry opens it', async () => {
    const clientToken = await apiLogin(CLIENT_EMAIL);
    const expertToken = await apiLogin(EXPERT_EMAIL);
    await markAllReadByApi(clientToken);
    const conversation = await api<{ id: string }>('POST', '/conversations', clientToken, { subject: at('Label printer'), message: 'The printer jams again.' });
    expect(conversation.status).toBe(201);

    await signInInBrowser(CLIENT_EMAIL, '/client/chat');
    await waitForLiveSocket();
    await markAllReadByApi(clientToken);
    await page.reload();
    await waitForLiveSocket();
    await expectUnreadCount(0);

    const reply = await api<{ id: string }>('POST', `/conversations/${conversation.body.id}/messages`, expertToken, { content: at('Cleared the jam; it prints again.') });
    expect(reply.status).toBe(201);
    // Pushed, counted, and in the inbox under the Specialist's name: never the Expert's.
    await expectUnreadCount(1);
    await page.goto('/client/inbox');
    const entry = page.getByTestId('notification-item').filter({ hasText: at('Cleared the jam; it prints again.') });
    await entry.waitFor({ timeout: TIMEOUT });
    expect(await entry.textContent()).toContain(`replied in “${at('Label printer')}”`);
    expect(await entry.textContent()).not.toMatch(/expert/i);
    await entry.getByRole('link', { name: 'Open the conversation', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/client/chat' && url.searchParams.get('conversation') === conversation.body.id, { timeout: TIMEOUT });
    await page.getByText(at('Cleared the jam; it prints again.')).first().waitFor({ timeout: TIMEOUT });
  });
});
