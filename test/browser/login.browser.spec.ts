import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { seenMailIds, waitForMailedCode } from '../support/mail.js';
import { startServer, type RunningServer } from './support/server.js';

const DEMO_PASSWORD = 'demo1234';
const DEMO_USERS = [
  { email: 'superadmin@platform.demo.invalid', landing: '/ops/clients', title: 'Clients' },
  { email: 'account_manager@platform.demo.invalid', landing: '/ops/clients', title: 'Clients' },
  { email: 'expert@platform.demo.invalid', landing: '/workspace/queue', title: 'Attention list' },
  { email: 'org_admin@acme.demo.invalid', landing: '/client/chat', title: 'Chat' },
  { email: 'client@acme.demo.invalid', landing: '/client/chat', title: 'Chat' },
] as const;
type DemoUser = (typeof DEMO_USERS)[number];

let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  server = await startServer();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

// A fresh context per test: its own localStorage, so no session leaks from one test to the next.
beforeEach(async () => {
  context = await browser.newContext({ baseURL: server.baseUrl });
  page = await context.newPage();
  pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
});

afterEach(async () => {
  await context.close();
  expect(pageErrors, 'uncaught errors in the page').toEqual([]);
});

async function waitForPath(path: string): Promise<void> {
  await page.waitForURL((url) => url.pathname === path, { timeout: 15_000 });
}

async function expectSignedInPage(user: DemoUser): Promise<void> {
  await waitForPath(user.landing);
  await page.getByRole('heading', { level: 1, name: user.title, exact: true }).waitFor();
  const currentUser = page.getByTestId('current-user');
  await currentUser.waitFor();
  expect(await currentUser.textContent()).toContain(user.email);
}

async function submitPasswordLogin(email: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

describe('sign-in through the web app', () => {
  it('lists the demo accounts on the login page', async () => {
    await page.goto('/login');
    const demoAccounts = page.getByTestId('demo-accounts');
    await demoAccounts.waitFor();
    const text = await demoAccounts.textContent();
    for (const user of DEMO_USERS) expect(text).toContain(user.email);
    expect(text).toContain(DEMO_PASSWORD);
  });

  for (const user of DEMO_USERS) {
    it(`signs ${user.email} in with the password and lands on ${user.landing}`, async () => {
      await submitPasswordLogin(user.email, DEMO_PASSWORD);
      await expectSignedInPage(user);

      // The landing survives a reload, and `/` leads back to it.
      await page.goto('/');
      await expectSignedInPage(user);
    });
  }

  it('signs in with a code sent by email', async () => {
    const user = DEMO_USERS.find((candidate) => candidate.email.startsWith('expert@'))!;
    await page.goto('/login');
    await page.getByRole('tab', { name: 'Email code', exact: true }).click();
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(user.email);
    const seenIds = await seenMailIds(server.baseUrl, user.email);
    await page.getByRole('button', { name: 'Send code', exact: true }).click();
    await page.getByRole('textbox', { name: 'Code', exact: true }).waitFor();

    const code = await waitForMailedCode(server.baseUrl, user.email, seenIds);
    await page.getByRole('textbox', { name: 'Code', exact: true }).fill(code);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expectSignedInPage(user);

    // The same mail is listed in the development outbox page.
    await page.goto('/dev/mail');
    await page.getByRole('searchbox', { name: 'Recipient', exact: true }).fill(user.email);
    await page.getByTestId('mail-item').filter({ hasText: code }).first().waitFor();
  });

  it('shows an error for a wrong password and stays on /login', async () => {
    await submitPasswordLogin('superadmin@platform.demo.invalid', 'not-the-password');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect((await alert.textContent())?.trim()).not.toBe('');
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it("sends a signed-in user away from another role's page, and to /login after signing out", async () => {
    const client = DEMO_USERS.find((candidate) => candidate.email.startsWith('client@'))!;
    await submitPasswordLogin(client.email, DEMO_PASSWORD);
    await expectSignedInPage(client);

    await page.goto('/ops/clients');
    await expectSignedInPage(client);

    const token = await page.evaluate<string | null>("localStorage.getItem('cos.token')");
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await waitForPath('/login');
    expect(await page.evaluate<string | null>("localStorage.getItem('cos.token')")).toBeNull();
    // Sign out ended the session on the server: the token it held is refused.
    const me = await fetch(`${server.baseUrl}/api/auth/me`, { headers: { Authorization: `Bearer ${token}` } });
    expect(me.status).toBe(401);
    await page.goto('/client/chat');
    await waitForPath('/login');
  });

  it('sends an open page to /login by itself when its sessions end elsewhere (the server closes its socket)', async () => {
    const client = DEMO_USERS.find((candidate) => candidate.email.startsWith('client@'))!;
    // The page's socket is in once the server has accepted it into the namespace (Engine.IO 4, Socket.IO 4 CONNECT).
    const connected = page
      .waitForEvent('websocket', { timeout: 15_000 })
      .then((ws) => ws.waitForEvent('framereceived', { predicate: (frame) => String(frame.payload).startsWith('40/notifications'), timeout: 15_000 }));
    await submitPasswordLogin(client.email, DEMO_PASSWORD);
    await expectSignedInPage(client);
    await connected;

    // Another device signs out of every session of this user; the page itself is left alone.
    const login = await fetch(`${server.baseUrl}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: client.email, password: DEMO_PASSWORD }) });
    const { token } = (await login.json()) as { token: string };
    const logout = await fetch(`${server.baseUrl}/api/auth/logout`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ all: true }) });
    expect(logout.status).toBe(204);
    await waitForPath('/login');
  });
});

describe('routes without a session', () => {
  it('sends / to /login', async () => {
    await page.goto('/');
    await waitForPath('/login');
    await page.getByRole('heading', { level: 1, name: 'Sign in', exact: true }).waitFor();
  });

  it('redirects the legacy paths of spec 9.5', async () => {
    await page.goto('/am/foo');
    await waitForPath('/ops/foo');

    await page.goto('/superadmin/users');
    await waitForPath('/ops/users');

    await page.goto('/portal/admin/team?tab=invites');
    await waitForPath('/client/settings/team');
    expect(new URL(page.url()).search).toBe('?tab=invites');

    await page.goto('/client/admin/billing');
    await waitForPath('/client/settings/billing');
  });

  it('shows a not found page with a link home', async () => {
    await page.goto('/no/such/page');
    await page.getByRole('heading', { level: 1, name: 'Not found', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Go home', exact: true }).click();
    await waitForPath('/login');
  });
});
