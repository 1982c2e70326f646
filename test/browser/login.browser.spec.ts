import { gzipSync } from 'node:zlib';
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
  try {
    await browser?.close();
  } finally {
    await server?.stop();
  }
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
    // Each role in words, never its key (org_member, account_manager).
    const roles = await demoAccounts.getByTestId('demo-account-role').allTextContents();
    expect(new Set(roles)).toEqual(new Set(['SuperAdmin', 'Account manager', 'Expert', 'Organization admin', 'Organization member']));
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
    const login = await fetch(`${server.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: client.email, password: DEMO_PASSWORD }),
    });
    const { token } = (await login.json()) as { token: string };
    const logout = await fetch(`${server.baseUrl}/api/auth/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ all: true }),
    });
    expect(logout.status).toBe(204);
    await waitForPath('/login');
  });
});

describe('the sign-in page', () => {
  it('puts the focus in the email field', async () => {
    await page.goto('/login');
    const email = page.getByRole('textbox', { name: 'Email', exact: true });
    await email.waitFor();
    await expect.poll(() => email.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
  });

  it('fills the form with a demo account chosen from the list; Enter then signs in', async () => {
    await page.goto('/login');
    await page.getByRole('tab', { name: 'Email code', exact: true }).click();
    await page.getByRole('button', { name: 'Use account_manager@platform.demo.invalid', exact: true }).click();
    // Back on the password form, filled in, with the focus on Sign in.
    expect(await page.getByRole('textbox', { name: 'Email', exact: true }).inputValue()).toBe('account_manager@platform.demo.invalid');
    expect(await page.getByRole('textbox', { name: 'Password', exact: true }).inputValue()).toBe(DEMO_PASSWORD);
    const signIn = page.getByRole('button', { name: 'Sign in', exact: true });
    await expect.poll(() => signIn.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await expectSignedInPage(DEMO_USERS[1]);
  });

  it('keeps the requested page through the sign-in', async () => {
    await page.goto('/ops/users?role=expert');
    await waitForPath('/login');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/ops/users?role=expert');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill('superadmin@platform.demo.invalid');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await waitForPath('/ops/users');
    expect(new URL(page.url()).search).toBe('?role=expert');
    await page.getByRole('heading', { level: 1, name: 'Users', exact: true }).waitFor();
  });

  for (const next of ['https://elsewhere.example/ops/users', '//elsewhere.example/ops/users', '/\\elsewhere.example/ops/users', '/\t/elsewhere.example', 'javascript:alert(1)']) {
    it(`ignores a next page that is not a path of this site (${JSON.stringify(next)}) and lands on the user's own page`, async () => {
      const user = DEMO_USERS[0];
      await page.goto(`/login?next=${encodeURIComponent(next)}`);
      await page.getByRole('textbox', { name: 'Email', exact: true }).fill(user.email);
      await page.getByRole('textbox', { name: 'Password', exact: true }).fill(DEMO_PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expectSignedInPage(user);
      expect(new URL(page.url()).origin).toBe(server.baseUrl);
    });
  }

  it('downloads none of the signed-in areas before the sign-in (each area is its own code)', async () => {
    const scripts = new Map<string, number>();
    page.on('response', async (response) => {
      if (response.request().resourceType() === 'script') scripts.set(new URL(response.url()).pathname, gzipSync(await response.body()).length);
    });
    await page.goto('/login');
    await page.getByRole('textbox', { name: 'Email', exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
    const beforeSignIn = new Map(scripts);
    const total = [...beforeSignIn.values()].reduce((sum, size) => sum + size, 0);
    // About 215 kB gzipped today (258 kB with Mantine as one chunk, 445 kB when every page was in
    // the first download).
    expect(total).toBeLessThan(240_000);

    await page.getByRole('textbox', { name: 'Email', exact: true }).fill('org_admin@acme.demo.invalid');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expectSignedInPage(DEMO_USERS[3]);
    await page.waitForLoadState('networkidle');
    // The client area's code (its pages, the shell) came with the sign-in, not before.
    const areaCode = [...scripts.keys()].filter((path) => !beforeSignIn.has(path));
    expect(areaCode.length).toBeGreaterThan(0);
    expect(areaCode.some((path) => /\/ChatPage-[\w-]+\.js$/.test(path))).toBe(true);
    // Route-level: the chat did not bring the settings pages with it.
    expect(areaCode.some((path) => /\/(ChannelsSettingsPage|TeamPage|BillingSettingsPage)-[\w-]+\.js$/.test(path))).toBe(false);
    expect([...beforeSignIn.keys()].some((path) => /\/(ChatPage|AppLayout|routes)-[\w-]+\.js$/.test(path))).toBe(false);
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
