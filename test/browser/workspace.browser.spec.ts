import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/screens.js';
import { browserSessions } from './support/sessions.js';

/**
 * The Expert's side of the web app (issue 18) at a phone's, a laptop's and a desktop's size: the
 * attention list's search and filters (org, Specialist, channel, assignee) kept in the address
 * (reload, Back and Forward), the words found marked; the profile; the notifications; the thread
 * page reloading once per event, not in storms; axe-core (colour contrast included) on the
 * filtered list and on the thread after a follow-up.
 */

const DEMO_PASSWORD = 'demo1234';
const CLIENT_EMAIL = 'client@acme.demo.invalid';
const EXPERT_EMAIL = 'expert@platform.demo.invalid';
const ORG_NAME = 'Acme Corporation';
const TIMEOUT = 15_000;

const sessions = browserSessions();

const tokens = new Map<string, string>();
async function tokenOf(email: string): Promise<string> {
  if (!tokens.has(email)) {
    const login = await fetch(`${sessions.baseUrl}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password: DEMO_PASSWORD }) });
    tokens.set(email, ((await login.json()) as { token: string }).token);
  }
  return tokens.get(email)!;
}

/** A call of the API as `email` (the set-up a test does not drive through the pages). */
async function api<T>(email: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${sessions.baseUrl}/api${path}`, {
    method,
    headers: { Authorization: `Bearer ${await tokenOf(email)}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return (await response.json()) as T;
}

/** A client conversation escalated to the attention list (to the org's primary Specialist, or the assignment's). */
async function escalated(subject: string, message: string, assignmentId?: string): Promise<string> {
  const { id } = await api<{ id: string }>(CLIENT_EMAIL, 'POST', '/conversations', { subject, message, ...(assignmentId && { assignmentId }) });
  await api(CLIENT_EMAIL, 'POST', `/conversations/${id}/escalate`, { reason: 'A person please' });
  return id;
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto('/login');
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/workspace/queue', { timeout: TIMEOUT });
}

/** Nothing is wider than the window: the page never scrolls sideways. */
async function expectNoHorizontalOverflow(page: Page, where: string): Promise<void> {
  const root = page.locator('html');
  const { scroll, client } = await root.evaluate((html) => {
    const { scrollWidth, clientWidth } = html as unknown as { scrollWidth: number; clientWidth: number };
    return { scroll: scrollWidth, client: clientWidth };
  });
  expect(scroll, `${where}: the page is wider than the window`).toBeLessThanOrEqual(client);
}

const params = (page: Page) => new URL(page.url()).searchParams;
const row = (page: Page, conversationId: string) => page.locator(`[data-testid="queue-item"][data-conversation-id="${conversationId}"]`);

/** A filter's input (a Mantine Select). */
const filter = (page: Page, name: string) => page.getByTestId(`queue-filter-${name}`);

async function pick(page: Page, name: string, option: string): Promise<void> {
  await filter(page, name).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

describe.each([
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
])('the Expert workspace at $width x $height', ({ width, height }) => {
  const word = `zeppelin${width}`;
  const conv = { mine: '', other: '' };
  let page: Page;

  it('searches and filters the attention list, all kept in the address through reload, Back and Forward', async () => {
    conv.mine = await escalated(`Kettle ${width}`, `The ${word} kettle leaks in the kitchen`);
    conv.other = await escalated(`Printer ${width}`, `The ${word} printer jams`);
    const expertId = (await api<{ id: string }>(EXPERT_EMAIL, 'GET', '/auth/me')).id;
    await api(EXPERT_EMAIL, 'PATCH', `/conversations/${conv.mine}/assign`, { expertId });

    page = await sessions.newPage();
    await page.setViewportSize({ width, height });
    await signIn(page, EXPERT_EMAIL);
    await row(page, conv.mine).waitFor({ timeout: TIMEOUT });
    // Names, not ids.
    expect(await row(page, conv.mine).getByTestId('queue-org').textContent()).toBe(ORG_NAME);
    expect(await row(page, conv.mine).getByTestId('queue-assigned').textContent()).toBe('you');

    // The search: the address follows it; both threads match, the word marked in each.
    await page.getByRole('searchbox', { name: 'Search' }).fill(word);
    await page.waitForURL((url) => url.searchParams.get('q') === word, { timeout: TIMEOUT });
    await row(page, conv.other).waitFor({ timeout: TIMEOUT });
    await row(page, conv.mine).waitFor({ timeout: TIMEOUT });
    await expect.poll(() => page.locator('[data-testid="queue-item"]').count(), { timeout: TIMEOUT }).toBe(2);
    for (const id of [conv.mine, conv.other]) expect(await row(page, id).locator('mark').first().textContent()).toBe(word);

    // A filter on top: only the thread assigned to the caller.
    await pick(page, 'assignee', 'Me');
    await page.waitForURL((url) => url.searchParams.get('assignee') === 'me', { timeout: TIMEOUT });
    await row(page, conv.other).waitFor({ state: 'detached', timeout: TIMEOUT });
    await pick(page, 'org', ORG_NAME);
    await page.waitForURL((url) => url.searchParams.has('org'), { timeout: TIMEOUT });
    await row(page, conv.mine).waitFor({ timeout: TIMEOUT });
    await expectNoHorizontalOverflow(page, 'the filtered list');

    // A reload keeps all of it.
    await page.reload();
    await row(page, conv.mine).locator('mark').first().waitFor({ timeout: TIMEOUT });
    expect(params(page).get('q')).toBe(word);
    expect(params(page).get('assignee')).toBe('me');
    expect(await page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe(word);
    expect(await filter(page, 'assignee').inputValue()).toBe('Me');
    expect(await filter(page, 'org').inputValue()).toBe(ORG_NAME);
    expect(await row(page, conv.other).count()).toBe(0);

    // Back twice: the search alone again, both threads; Forward: the filter back.
    await page.goBack();
    await page.goBack();
    await page.waitForURL((url) => !url.searchParams.has('assignee') && url.searchParams.get('q') === word, { timeout: TIMEOUT });
    await row(page, conv.other).waitFor({ timeout: TIMEOUT });
    await page.goForward();
    await page.waitForURL((url) => url.searchParams.get('assignee') === 'me', { timeout: TIMEOUT });
    await row(page, conv.other).waitFor({ state: 'detached', timeout: TIMEOUT });

    // The tab is one more part of the address: nothing of these is resolved.
    await page.getByTestId('queue-tab-resolved').click();
    await page.waitForURL((url) => url.searchParams.get('status') === 'resolved' && url.searchParams.get('q') === word, { timeout: TIMEOUT });
    await page.getByTestId('queue-empty').waitFor({ timeout: TIMEOUT });
    await expectNoHorizontalOverflow(page, 'the attention list');
  });

  it('filters the attention list by Specialist and by channel, each kept in the address', async () => {
    const filterWord = `tugboat${width}`;
    const specialists = (await api<{ items: { name: string; assignmentId: string; isPrimary: boolean }[] }>(CLIENT_EMAIL, 'GET', '/client/specialists')).items;
    const primary = specialists.find((s) => s.isPrimary)!;
    const other = specialists.find((s) => !s.isPrimary)!;
    const withPrimary = await escalated(`Invoice ${width}`, `The ${filterWord} invoice is wrong`);
    const withOther = await escalated(`Payroll ${width}`, `The ${filterWord} payroll is late`, other.assignmentId);
    const otherId = (await api<{ specialists: { id: string; name: string }[] }>(EXPERT_EMAIL, 'GET', '/expert-queue/filters')).specialists.find((s) => s.name === other.name)!.id;

    await page.goto(`/workspace/queue?q=${filterWord}`);
    await row(page, withPrimary).waitFor({ timeout: TIMEOUT });
    await row(page, withOther).waitFor({ timeout: TIMEOUT });
    expect(await row(page, withPrimary).getByTestId('queue-specialist').textContent()).toBe(primary.name);

    // The Specialist: only the other Specialist's thread; the address names it, a reload keeps it.
    await pick(page, 'specialist', other.name);
    await page.waitForURL((url) => url.searchParams.get('specialist') === otherId && url.searchParams.get('q') === filterWord, { timeout: TIMEOUT });
    await row(page, withPrimary).waitFor({ state: 'detached', timeout: TIMEOUT });
    await page.reload();
    await row(page, withOther).waitFor({ timeout: TIMEOUT });
    expect(await row(page, withPrimary).count()).toBe(0);
    expect(await filter(page, 'specialist').inputValue()).toBe(other.name);
    // Back: both again.
    await page.goBack();
    await page.waitForURL((url) => !url.searchParams.has('specialist'), { timeout: TIMEOUT });
    await row(page, withPrimary).waitFor({ timeout: TIMEOUT });

    // The channel: both came on the web chat; none by email. Each kept in the address and read back.
    await pick(page, 'channel', 'Web chat');
    await page.waitForURL((url) => url.searchParams.get('channel') === 'web', { timeout: TIMEOUT });
    await row(page, withPrimary).waitFor({ timeout: TIMEOUT });
    await row(page, withOther).waitFor({ timeout: TIMEOUT });
    await pick(page, 'channel', 'Email');
    await page.waitForURL((url) => url.searchParams.get('channel') === 'email', { timeout: TIMEOUT });
    await page.getByTestId('queue-empty').waitFor({ timeout: TIMEOUT });
    await page.reload();
    await page.getByTestId('queue-empty').waitFor({ timeout: TIMEOUT });
    expect(await filter(page, 'channel').inputValue()).toBe('Email');
    expect(params(page).get('q')).toBe(filterWord);
    await expectNoHorizontalOverflow(page, 'the list filtered by channel');
    expect(await seriousAxeViolations(page), 'axe-core on the filtered list').toEqual([]);
  });

  it('reloads the thread page once per event: a message that arrives, a follow-up sent', async () => {
    const gets: string[] = [];
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (request.method() === 'GET' && (path.startsWith('/api/conversations') || path.startsWith('/api/expert-queue'))) gets.push(path);
    });
    const joined = page.waitForEvent('websocket', { predicate: (socket) => socket.url().includes('/socket.io/'), timeout: TIMEOUT });
    await page.goto(`/workspace/queue/${conv.mine}`);
    await joined;
    const thread = page.getByTestId('conversation-thread');
    await thread.waitFor({ timeout: TIMEOUT });
    // The org's name comes with the thread's attention-list item, which may load after the thread.
    await expect.poll(() => page.getByTestId('thread-details').textContent(), { timeout: TIMEOUT }).toContain(ORG_NAME);
    // Settled: the thread, its item and the reload after joining the room are done.
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(1000);

    // The client writes (and the offline Specialist answers): both pushed into the open thread, with no reload of the thread.
    gets.length = 0;
    await api(CLIENT_EMAIL, 'POST', `/conversations/${conv.mine}/messages`, { content: `One more thing about the ${word}` });
    await thread
      .locator('[data-testid="message"][data-role="client"]')
      .filter({ hasText: `One more thing about the ${word}` })
      .waitFor({ timeout: TIMEOUT });
    await page.waitForTimeout(1500);
    expect(
      gets.filter((path) => path.startsWith('/api/conversations/')),
      gets.join(', '),
    ).toEqual([]);
    expect(gets.length, gets.join(', ')).toBeLessThanOrEqual(1);

    // The Expert sends a follow-up: the thread shows it and the status it changes, with one reload of the item.
    gets.length = 0;
    await page.getByTestId('staff-composer-input').fill(`A technician brings a new ${word}`);
    await page.getByTestId('staff-composer-send').click();
    await thread
      .locator('[data-testid="message"][data-role="expert"]')
      .filter({ hasText: `A technician brings a new ${word}` })
      .waitFor({ timeout: TIMEOUT });
    await page.getByTestId('thread-details').locator('[data-testid="conversation-status"][data-status="awaiting_client"]').waitFor({ timeout: TIMEOUT });
    await page.waitForTimeout(1500);
    expect(
      gets.filter((path) => path.startsWith('/api/conversations/')),
      gets.join(', '),
    ).toEqual([]);
    expect(gets.length, gets.join(', ')).toBeLessThanOrEqual(1);
    // Status words from the shared mapping.
    expect(await page.getByTestId('thread-details').getByTestId('conversation-status').textContent()).toBe('Awaiting reply');
    await expectNoHorizontalOverflow(page, 'the thread');
    expect(await seriousAxeViolations(page), 'axe-core on the thread with a follow-up sent').toEqual([]);
  });

  it('shows the profile: the name saved, password and two-factor sections there', async () => {
    await page.goto('/workspace/profile');
    const name = page.getByRole('textbox', { name: 'Name', exact: true });
    await name.waitFor({ timeout: TIMEOUT });
    await name.fill(`Demo Expert ${width}`);
    await page.getByRole('form', { name: 'Profile' }).getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor({ timeout: TIMEOUT });
    await page.reload();
    await expect.poll(() => page.getByRole('textbox', { name: 'Name', exact: true }).inputValue(), { timeout: TIMEOUT }).toBe(`Demo Expert ${width}`);
    expect((await api<{ name: string }>(EXPERT_EMAIL, 'GET', '/auth/me')).name).toBe(`Demo Expert ${width}`);
    await page.getByTestId('two-factor').getByRole('button', { name: 'Set up two-factor sign-in' }).waitFor();
    await page.getByRole('form', { name: 'Change password' }).getByLabel('Current password').waitFor();
    await expectNoHorizontalOverflow(page, 'the profile');
  });

  it('lists the notifications inside the workspace', async () => {
    await page.goto('/workspace/notifications');
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor({ timeout: TIMEOUT });
    // The escalations of this file told the covering Expert.
    await page.getByTestId('notification-item').filter({ hasText: 'A client asked for a human' }).first().waitFor({ timeout: TIMEOUT });
    await expectNoHorizontalOverflow(page, 'the notifications');
  });
});
