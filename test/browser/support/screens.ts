import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { codeMailedBy, waitForMail } from '../../support/mail.js';

/**
 * What the screen tests and the README screenshots share: the three screen sizes, the demo users,
 * the pages of spec 4.1 with the user who opens each, signing in through the API, and the checks
 * of a page (overflow, navigation, accessibility).
 */

export interface ScreenSize {
  name: 'phone' | 'laptop' | 'desktop';
  width: number;
  height: number;
}

export const SCREEN_SIZES: readonly ScreenSize[] = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'laptop', width: 1280, height: 800 },
  { name: 'desktop', width: 1440, height: 900 },
];

/** Below Mantine's `sm` breakpoint the navigation is in the Burger menu. */
export const isFolded = (size: { width: number }): boolean => size.width < 768;

export const DEMO_PASSWORD = 'demo1234';
export const DEMO = {
  superadmin: 'superadmin@platform.demo.invalid',
  accountManager: 'account_manager@platform.demo.invalid',
  expert: 'expert@platform.demo.invalid',
  orgAdmin: 'org_admin@acme.demo.invalid',
  member: 'client@acme.demo.invalid',
} as const;
export type DemoEmail = (typeof DEMO)[keyof typeof DEMO];
export const DEMO_ORG_SLUG = 'acme';

/** The ids the pages of spec 4.1 need, read from the seeded demo data through the API. */
export interface DemoIds {
  orgId: string;
  assignmentId: string;
  userId: string;
  /** The onboarding link of a fresh org (`/onboarding/start?token=`), and that invite's token and admin. */
  onboardingPath: string;
  onboardingToken: string;
  onboardingAdminEmail: string;
  /** A conversation of the demo org on the Expert's attention list. */
  queueConversationId: string;
  /** A conversation of the demo org admin's chat. */
  clientConversationId: string;
  /** The link of a member invitation mailed to the demo member (`/invitations/accept?token=`). */
  invitationPath: string;
}

/** The admin of the fresh org of `DemoIds.onboardingPath`, signed in with the onboarding code. */
export const ONBOARDING_ADMIN = 'onboarding admin';

export interface Screen {
  name: string;
  /** Who opens it; `null`: a page for signed-out visitors. */
  user: DemoEmail | typeof ONBOARDING_ADMIN | null;
  path: (ids: DemoIds) => string;
  /** A public page (no app shell) opened by someone signed in. */
  withoutShell?: true;
  /** After the page is open: takes it to the state shown (a later step of a flow), on the same path. */
  reach?: (page: Page) => Promise<void>;
}

/** Every page of spec 4.1, and the sign-in page. */
export const SCREENS: readonly Screen[] = [
  { name: 'sign-in', user: null, path: () => '/login' },
  { name: 'ops clients', user: DEMO.accountManager, path: () => '/ops/clients' },
  { name: 'ops new client', user: DEMO.accountManager, path: () => '/ops/clients/new' },
  { name: 'ops setup step 1', user: DEMO.accountManager, path: (ids) => `/ops/clients/${ids.orgId}/setup/step-1` },
  { name: 'ops setup step 2', user: DEMO.accountManager, path: (ids) => `/ops/clients/${ids.orgId}/setup/step-2` },
  { name: 'ops setup step 3', user: DEMO.accountManager, path: (ids) => `/ops/clients/${ids.orgId}/setup/step-3` },
  { name: 'ops setup step 4', user: DEMO.accountManager, path: (ids) => `/ops/clients/${ids.orgId}/setup/step-4` },
  { name: 'ops assignment detail', user: DEMO.accountManager, path: (ids) => `/ops/clients/${ids.orgId}/specialists/${ids.assignmentId}` },
  { name: 'onboarding start', user: null, path: (ids) => ids.onboardingPath },
  { name: 'client chat', user: DEMO.orgAdmin, path: () => '/client/chat' },
  { name: 'client inbox', user: DEMO.orgAdmin, path: () => '/client/inbox' },
  { name: 'client settings profile', user: DEMO.orgAdmin, path: () => '/client/settings/profile' },
  { name: 'client settings team', user: DEMO.orgAdmin, path: () => '/client/settings/team' },
  { name: 'client settings channels', user: DEMO.orgAdmin, path: () => '/client/settings/channels' },
  { name: 'client settings billing', user: DEMO.orgAdmin, path: () => '/client/settings/billing' },
  { name: 'workspace queue', user: DEMO.expert, path: () => '/workspace/queue' },
  { name: 'ops users', user: DEMO.superadmin, path: () => '/ops/users' },
  { name: 'ops user detail', user: DEMO.superadmin, path: (ids) => `/ops/users/${ids.userId}` },
  { name: 'ops billing', user: DEMO.superadmin, path: () => '/ops/billing' },
  { name: 'ops analytics', user: DEMO.superadmin, path: () => '/ops/analytics' },
  { name: 'ops audit', user: DEMO.superadmin, path: () => '/ops/audit' },
  { name: 'ops impersonation', user: DEMO.superadmin, path: () => '/ops/impersonation' },
  { name: 'ops specialists', user: DEMO.superadmin, path: () => '/ops/specialists' },
  { name: 'ops profile', user: DEMO.superadmin, path: () => '/ops/profile' },
  { name: 'ops notifications', user: DEMO.accountManager, path: () => '/ops/notifications' },
  { name: 'ops client overview', user: DEMO.accountManager, path: (ids) => `/ops/clients/${ids.orgId}` },
  { name: 'ops quarantine', user: DEMO.accountManager, path: () => '/ops/channels/quarantine' },
  { name: 'workspace thread', user: DEMO.expert, path: (ids) => `/workspace/queue/${ids.queueConversationId}` },
  { name: 'workspace notifications', user: DEMO.expert, path: () => '/workspace/notifications' },
  { name: 'workspace profile', user: DEMO.expert, path: () => '/workspace/profile' },
  { name: 'client chat, a thread open', user: DEMO.orgAdmin, path: (ids) => `/client/chat?conversation=${ids.clientConversationId}` },
  { name: 'accept invite (the preserved entry)', user: null, path: (ids) => ids.onboardingPath.replace('/onboarding/start', '/accept-invite') },
  { name: 'onboarding workspace setup', user: ONBOARDING_ADMIN, withoutShell: true, path: (ids) => ids.onboardingPath },
  {
    name: 'onboarding your team',
    user: ONBOARDING_ADMIN,
    withoutShell: true,
    path: (ids) => ids.onboardingPath,
    reach: async (page) => {
      await page.getByRole('button', { name: 'Continue', exact: true }).click();
      await page.locator('[data-testid="onboarding-steps"][data-active-step="Your Team"]').waitFor();
      await page.getByRole('textbox', { name: 'Your name', exact: true }).waitFor();
    },
  },
  { name: 'reset password', user: null, path: () => `/reset-password?email=${encodeURIComponent(DEMO.member)}` },
  { name: 'accept a member invitation', user: DEMO.member, withoutShell: true, path: (ids) => ids.invitationPath },
  { name: 'development outbox', user: null, path: () => '/dev/mail' },
];

/**
 * The navigation each demo user must see, in order (spec 5.4 access; the Expert's own profile and
 * notifications are under the workspace, staff's under /ops, a client's inbox is their notifications).
 */
export const EXPECTED_NAV: Record<DemoEmail, readonly { label: string; path: string }[]> = {
  [DEMO.superadmin]: [
    { label: 'Clients', path: '/ops/clients' },
    { label: 'Specialists', path: '/ops/specialists' },
    { label: 'Quarantine', path: '/ops/channels' },
    { label: 'Billing', path: '/ops/billing' },
    { label: 'Analytics', path: '/ops/analytics' },
    { label: 'Users', path: '/ops/users' },
    { label: 'Audit log', path: '/ops/audit' },
    { label: 'Impersonation', path: '/ops/impersonation' },
    { label: 'Attention list', path: '/workspace/queue' },
    { label: 'Notifications', path: '/ops/notifications' },
    { label: 'Profile', path: '/ops/profile' },
  ],
  [DEMO.accountManager]: [
    { label: 'Clients', path: '/ops/clients' },
    { label: 'Quarantine', path: '/ops/channels' },
    { label: 'Billing', path: '/ops/billing' },
    { label: 'Attention list', path: '/workspace/queue' },
    { label: 'Notifications', path: '/ops/notifications' },
    { label: 'Profile', path: '/ops/profile' },
  ],
  [DEMO.expert]: [
    { label: 'Attention list', path: '/workspace/queue' },
    { label: 'Notifications', path: '/workspace/notifications' },
    { label: 'Profile', path: '/workspace/profile' },
  ],
  [DEMO.orgAdmin]: [
    { label: 'Chat', path: '/client/chat' },
    { label: 'Notifications', path: '/client/inbox' },
    { label: 'Settings', path: '/client/settings' },
  ],
  [DEMO.member]: [
    { label: 'Chat', path: '/client/chat' },
    { label: 'Notifications', path: '/client/inbox' },
    { label: 'Settings', path: '/client/settings' },
  ],
};

async function api<T>(baseUrl: string, path: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(`${baseUrl}/api${path}`, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined && { 'Content-Type': 'application/json' }), ...(init.token && { Authorization: `Bearer ${init.token}` }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path} answered ${response.status}: ${await response.text()}`);
  const text = await response.text();
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** A session token of a demo user, from the password sign-in. */
export async function tokenOf(baseUrl: string, email: DemoEmail): Promise<string> {
  return (await api<{ token: string }>(baseUrl, '/auth/login', { method: 'POST', body: { email, password: DEMO_PASSWORD } })).token;
}

/**
 * The demo org, one of its Specialist assignments and one of its users, a conversation on the
 * attention list and one of its admin's chat; a fresh org, created and invited as the AM's wizard
 * does, whose onboarding link opens the client's onboarding page; and a member invitation link.
 */
export async function readDemoIds(baseUrl: string): Promise<DemoIds> {
  const am = await tokenOf(baseUrl, DEMO.accountManager);
  const orgs = await api<{ items: { id: string; slug: string }[] }>(baseUrl, `/am/orgs?q=${DEMO_ORG_SLUG}`, { token: am });
  const org = orgs.items.find((candidate) => candidate.slug === DEMO_ORG_SLUG);
  if (!org) throw new Error('the demo org is not in the AM list');
  const assignments = await api<{ items: { id: string }[] }>(baseUrl, `/am/orgs/${org.id}/specialist-assignments`, { token: am });
  if (!assignments.items[0]) throw new Error('the demo org has no Specialist assignment');

  const superadmin = await tokenOf(baseUrl, DEMO.superadmin);
  const users = await api<{ items: { id: string; email: string }[] }>(baseUrl, `/admin/users?q=${encodeURIComponent(DEMO.orgAdmin)}`, { token: superadmin });
  const user = users.items.find((candidate) => candidate.email === DEMO.orgAdmin);
  if (!user) throw new Error('the demo org admin is not in the user list');

  const slug = `screens-${Date.now().toString(36)}`;
  const created = await api<{ id: string }>(baseUrl, '/am/orgs', {
    method: 'POST',
    token: am,
    body: {
      legalName: 'Screens Test GmbH',
      slug,
      industry: 'finance',
      corporateDomains: [`${slug}.example.com`],
      adminEmail: `owner@${slug}.example.com`,
      website: `https://${slug}.example.com`,
      timezone: 'Europe/Berlin',
    },
  });
  // The invite sent (as on wizard step 4): its admin can then ask for the onboarding code.
  const link = await api<{ onboardingUrl: string }>(baseUrl, `/am/orgs/${created.id}/invite`, { method: 'POST', token: am, body: {} });
  await waitForMail(baseUrl, `owner@${slug}.example.com`, () => true, 'of the onboarding invite');
  const url = new URL(link.onboardingUrl);
  const onboardingToken = url.searchParams.get('token');
  if (!onboardingToken) throw new Error('the onboarding link has no token');

  return {
    orgId: org.id,
    assignmentId: assignments.items[0].id,
    userId: user.id,
    onboardingPath: `${url.pathname}${url.search}`,
    onboardingToken,
    onboardingAdminEmail: `owner@${slug}.example.com`,
    ...(await readDemoConversations(baseUrl)),
    invitationPath: await memberInvitationPath(baseUrl, am),
  };
}

/** A conversation of the demo org on the Expert's attention list, and the newest of its admin's chat (the seeded demo activity). */
export async function readDemoConversations(baseUrl: string): Promise<Pick<DemoIds, 'queueConversationId' | 'clientConversationId'>> {
  const expert = await tokenOf(baseUrl, DEMO.expert);
  const queue = await api<{ items: { conversationId: string; orgName: string }[] }>(baseUrl, '/expert-queue?status=all', { token: expert });
  const queued = queue.items[0];
  if (!queued) throw new Error('nothing is on the attention list of the demo Expert');
  const orgAdmin = await tokenOf(baseUrl, DEMO.orgAdmin);
  const conversations = await api<{ items: { id: string }[] }>(baseUrl, '/conversations', { token: orgAdmin });
  if (!conversations.items[0]) throw new Error('the demo org admin has no conversation');
  return { queueConversationId: queued.conversationId, clientConversationId: conversations.items[0].id };
}

/**
 * A second org whose admin invites the demo member (an existing user of the demo org): the path of
 * the link in the invitation mail, which the demo member opens signed in.
 */
async function memberInvitationPath(baseUrl: string, am: string): Promise<string> {
  const slug = `invites-${Date.now().toString(36)}`;
  await api(baseUrl, '/am/orgs', {
    method: 'POST',
    token: am,
    body: {
      legalName: 'Invitations Test GmbH',
      slug,
      industry: 'technology',
      corporateDomains: [`${slug}.example.com`],
      adminEmail: `owner@${slug}.example.com`,
      website: `https://${slug}.example.com`,
      timezone: 'UTC',
    },
  });
  const admin = await api<{ token: string }>(baseUrl, '/auth/demo-login', { method: 'POST', body: { role: 'org_admin', orgSlug: slug } });
  await api(baseUrl, '/admin/members/invite', { method: 'POST', token: admin.token, body: { email: DEMO.member, orgRole: 'member' } });
  const mail = await waitForMail(baseUrl, DEMO.member, (m) => m.subject === 'You have been invited to Invitations Test GmbH', 'inviting to Invitations Test GmbH');
  const link = /https?:\/\/\S+\/invitations\/accept\?token=[\w-]+/.exec(mail.text);
  if (!link) throw new Error('the invitation mail has no link');
  const url = new URL(link[0]);
  return `${url.pathname}${url.search}`;
}

/** Signs `page` in as the admin of the onboarding invite, with the code mailed to them (as its first step does). */
export async function signInOnboardingAdmin(page: Page, baseUrl: string, ids: DemoIds): Promise<void> {
  const code = await codeMailedBy(baseUrl, ids.onboardingAdminEmail, () => api(baseUrl, '/auth/send-invite-otp', { method: 'POST', body: { token: ids.onboardingToken } }));
  const { token } = await api<{ token: string }>(baseUrl, '/auth/verify-invite-otp', { method: 'POST', body: { token: ids.onboardingToken, code } });
  await page.goto('/login');
  await page.evaluate(`localStorage.setItem('cos.token', ${JSON.stringify(token)})`);
}

/** Signs `page` in as `email` (its context's localStorage holds the session, as after the sign-in form). */
export async function signInPage(page: Page, baseUrl: string, email: DemoEmail): Promise<void> {
  const token = await tokenOf(baseUrl, email);
  await page.goto('/login');
  await page.evaluate(`localStorage.setItem('cos.token', ${JSON.stringify(token)})`);
}

/** Opens `path` and waits until the page has its heading and its requests are answered. */
export async function openScreen(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await page.waitForLoadState('networkidle');
  // Loaders replaced by their data.
  await page
    .locator('.mantine-Loader-root')
    .first()
    .waitFor({ state: 'detached', timeout: 10_000 })
    .catch(() => undefined);
}

/** How far the page is wider than the window (0: no horizontal overflow). */
export async function horizontalOverflow(page: Page): Promise<{ overflow: number; widest: string[] }> {
  return page.evaluate(`(() => {
    const overflow = document.scrollingElement.scrollWidth - window.innerWidth;
    const widest = overflow <= 0 ? [] : [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
      .filter((el) => !el.parentElement || el.parentElement.getBoundingClientRect().right <= window.innerWidth + 1)
      .slice(0, 5)
      .map((el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).slice(0, 2).join('.') : '') + ' (' + Math.round(el.getBoundingClientRect().right) + 'px)');
    return { overflow, widest };
  })()`);
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

/** axe-core's violations of impact serious or critical on the page as it is now. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated (not a <script> tag), so the page's Content-Security-Policy does not apply to it.
  if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) await page.evaluate(axeSource);
  return page.evaluate<AxeViolation[]>(`(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ': ' + n.failureSummary.replace(/\\s+/g, ' ').slice(0, 200)) }));
  })()`);
}

/** The window's box: a control inside it is on screen, not clipped. */
async function isInsideWindow(locator: Locator): Promise<boolean> {
  return locator.evaluate((el: { getBoundingClientRect(): { left: number; right: number; top: number; bottom: number } }) => {
    const box = el.getBoundingClientRect();
    // A string of the browser's globals would do too; this function runs in the page.
    const view = globalThis as unknown as { innerWidth: number; innerHeight: number };
    return box.left >= 0 && box.top >= 0 && box.right <= view.innerWidth + 0.5 && box.bottom <= view.innerHeight + 0.5;
  });
}

export function navigation(page: Page): Locator {
  return page.getByRole('navigation', { name: 'Areas' });
}

/** On a phone: opens the Burger menu (the navigation is folded away until then). */
export async function openMenu(page: Page, timeout = 15_000): Promise<void> {
  const burger = page.getByRole('button', { name: 'Menu', exact: true });
  const deadline = Date.now() + timeout;
  // Open and slid in entirely. A page that changes its address once more after it rendered (an
  // index route redirecting to its first tab, a lazily loaded page) closes the menu again, as any
  // new page does: then it is opened once more, until it stays open.
  // (Evaluated as an expression: a predicate function would be compiled in the page, which its
  // Content-Security-Policy refuses.)
  const openedAndStill = `new Promise((resolve) => {
    const nav = document.getElementById('app-navigation');
    const burger = document.querySelector('[aria-controls="app-navigation"]');
    const until = performance.now() + 2000;
    const check = () => {
      if (burger.getAttribute('aria-expanded') === 'true' && nav.getBoundingClientRect().left >= 0 && nav.getAnimations().length === 0) resolve(true);
      else if (performance.now() > until) resolve(false);
      else requestAnimationFrame(check);
    };
    check();
  })`;
  for (;;) {
    if ((await burger.getAttribute('aria-expanded')) !== 'true') await burger.click();
    if ((await page.evaluate(openedAndStill)) === true) break;
    if (Date.now() > deadline) throw new Error(`the menu did not open and stay open within ${timeout} ms`);
  }
  await navigation(page).getByRole('link').first().waitFor();
}

/**
 * The signed-in shell's controls a user needs, each visible, entirely on screen and ready for a
 * click (checked with a trial click, which clicks nothing): every link of the navigation, the
 * notification bell, who is signed in, the role and Sign out. Returns what failed.
 */
export async function unreachableShellControls(page: Page, folded: boolean): Promise<string[]> {
  const problems: string[] = [];
  const burger = page.getByRole('button', { name: 'Menu', exact: true });
  if (folded) await openMenu(page);
  else if (await burger.isVisible()) problems.push('the Burger menu is shown on a wide screen');

  const controls: [string, Locator][] = [
    ['notification bell', page.getByRole('button', { name: 'Notifications', exact: true })],
    ['signed-in user', page.getByTestId('current-user')],
    ['role badge', page.getByTestId('current-user-role')],
    ['Sign out', page.getByRole('button', { name: 'Sign out', exact: true })],
  ];
  for (const link of await navigation(page).getByRole('link').all()) controls.push([`navigation link ${await link.textContent()}`, link]);
  for (const [name, control] of controls) {
    if (!(await control.isVisible())) {
      problems.push(`${name}: not visible`);
      continue;
    }
    if (!(await isInsideWindow(control))) problems.push(`${name}: not entirely on screen`);
    const clickable =
      name === 'signed-in user' || name === 'role badge'
        ? true
        : await control.click({ trial: true, timeout: 2_000 }).then(
            () => true,
            () => false,
          );
    if (!clickable) problems.push(`${name}: cannot be clicked (covered or disabled)`);
  }
  // Text cut off inside its own box (an ellipsis where the words do not fit).
  const clipped = await page.evaluate<string[]>(`[...document.querySelectorAll('[data-testid="current-user-role"], nav[aria-label="Areas"] a, header button')]
    .filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent)`);
  for (const text of clipped) problems.push(`${text}: its words are cut off`);
  if (folded) await burger.click();
  return problems;
}

/** The names of the links of the navigation, in order. */
export async function navigationLinks(page: Page): Promise<{ label: string; path: string }[]> {
  const links = await navigation(page).getByRole('link').all();
  return Promise.all(links.map(async (link) => ({ label: ((await link.textContent()) ?? '').trim(), path: new URL((await link.getAttribute('href')) ?? '', 'http://x').pathname })));
}

/** A new signed-out page in `context` at `size`. */
export async function sizedPage(context: BrowserContext, size: ScreenSize): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize({ width: size.width, height: size.height });
  return page;
}
