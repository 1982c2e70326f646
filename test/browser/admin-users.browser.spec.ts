import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SCREEN_SIZES, isFolded, openMenu, type ScreenSize } from './support/screens.js';
import { browserSessions } from './support/sessions.js';

/**
 * Editing a user at /ops/users/[id] (spec 4.7): found through the list's search, Save disabled
 * until a field changed and the email is valid, the role dropdown without legacy roles, the typed
 * email for a promotion to SuperAdmin, a name-only save that keeps the user's session, and an
 * email change that asks for the revoke confirmation and then ends the user's session. At a
 * phone's, a laptop's and a desktop's size, each size with users and an org of its own.
 */

const TIMEOUT = 15_000;
const sessions = browserSessions({ timeout: TIMEOUT });

async function api<T>(path: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(`${sessions.baseUrl}/api${path}`, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined && { 'Content-Type': 'application/json' }), ...(init.token && { Authorization: `Bearer ${init.token}` }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json().catch(() => undefined)) as T };
}

/** Everything the page keeps in localStorage. */
async function storedValues(page: Page): Promise<Record<string, string>> {
  return page.evaluate<Record<string, string>>('({ ...localStorage })');
}

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, any>;

/** A new active org (one Specialist), whose demo users `demo-login` creates: `<role>@<slug>.demo.invalid`. */
async function newOrg(slug: string): Promise<string> {
  const am = (await api<{ token: string }>('/auth/login', { method: 'POST', body: { email: 'account_manager@platform.demo.invalid', password: 'demo1234' } })).body.token;
  const org = await api<{ id: string }>('/am/orgs', {
    method: 'POST',
    token: am,
    body: {
      legalName: `Users ${slug}`,
      slug,
      industry: 'technology',
      corporateDomains: [`${slug}.example.com`],
      adminEmail: `owner@${slug}.example.com`,
      website: `https://${slug}.example.com`,
      timezone: 'UTC',
    },
  });
  expect(org.status).toBe(201);
  const pool = (await api<{ items: Array<{ id: string; slug: string }> }>('/am/specialists', { token: am })).body.items;
  expect((await api(`/am/orgs/${org.body.id}/specialist`, { method: 'POST', token: am, body: { specialistId: pool.find((s) => s.slug === 'omar-haddad')!.id } })).status).toBeLessThan(300);
  expect((await api(`/am/orgs/${org.body.id}/finish`, { method: 'POST', token: am, body: {} })).status).toBeLessThan(300);
  return slug;
}

/** Opens the Burger menu on a phone (the navigation is folded away there). */
async function showNavigation(page: Page, size: ScreenSize): Promise<void> {
  if (isFolded(size)) await openMenu(page);
}

async function waitForPath(page: Page, path: string | RegExp): Promise<void> {
  await page.waitForURL((url) => (typeof path === 'string' ? url.pathname === path : path.test(url.pathname)), { timeout: TIMEOUT });
}

describe.each(SCREEN_SIZES)('SuperAdmin edits a user at $width x $height', (size) => {
  it('saves a name-only edit directly, and asks for the revoke confirmation before an email change ends the sessions', async () => {
    // The target: the demo Expert of an org of this size, signed in through the API (their session is what gets revoked).
    const slug = await newOrg(`edit-${size.name}`);
    const targetEmail = `expert@${slug}.demo.invalid`;
    const movedEmail = `moved-expert@${slug}.demo.invalid`;
    const target = await api<{ token: string }>('/auth/demo-login', { method: 'POST', body: { role: 'expert', orgSlug: slug } });
    expect(target.status).toBe(200);
    const targetToken = target.body.token;
    expect((await api('/auth/me', { token: targetToken })).status).toBe(200);

    const page = await sessions.newPage(size);
    await page.goto('/login');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill('superadmin@platform.demo.invalid');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('demo1234');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await waitForPath(page, '/ops/clients');

    // The list: the navigation's link (in the menu on a phone), then the search.
    await showNavigation(page, size);
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Users', exact: true }).click();
    await waitForPath(page, '/ops/users');
    await page.getByRole('heading', { level: 1, name: 'Users', exact: true }).waitFor();
    await page.getByRole('searchbox', { name: 'Search' }).fill(targetEmail);
    const row = page.locator(`[data-testid="user-row"][data-email="${targetEmail}"]`);
    // The search is debounced: the list narrows to the one match.
    await expect.poll(() => page.getByTestId('user-row').count(), { timeout: TIMEOUT }).toBe(1);
    await row.waitFor();
    await row.getByRole('link').click();
    await waitForPath(page, /^\/ops\/users\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { level: 1, name: 'Demo Expert', exact: true }).waitFor();
    // Spec 4.7 rule 5: an Expert can be reset and impersonated.
    const actions = page.getByTestId('user-actions');
    for (const name of ['Edit', 'Reset password', 'Impersonate']) await actions.getByRole('button', { name, exact: true }).waitFor();

    // Save is disabled until a field changed; a name-only edit saves without a confirmation.
    await actions.getByRole('button', { name: 'Edit', exact: true }).click();
    const dialog = page.getByRole('dialog');
    const save = dialog.getByRole('button', { name: 'Save', exact: true });
    await save.waitFor();
    expect(await save.isDisabled()).toBe(true);
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Renamed Expert');
    expect(await save.isEnabled()).toBe(true);
    await save.click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('heading', { level: 1, name: 'Renamed Expert', exact: true }).waitFor();
    expect((await api('/auth/me', { token: targetToken })).status).toBe(200);

    // The role dropdown offers the six assignable roles only; promoting to SuperAdmin needs the email typed.
    await actions.getByRole('button', { name: 'Edit', exact: true }).click();
    await dialog.getByLabel('Role', { exact: true }).click();
    const options = (await page.getByRole('option').allTextContents()).map((t) => t.trim());
    expect(options).toEqual(['SuperAdmin', 'Account manager', 'Expert', 'AI operator', 'Organization admin', 'Organization member']);
    await page.getByRole('option', { name: 'SuperAdmin', exact: true }).click();
    expect(await save.isDisabled()).toBe(true);
    await dialog.getByTestId('confirm-email').fill(targetEmail);
    expect(await save.isEnabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });

    // An invalid email keeps Save disabled; a valid new one asks for the confirmation first.
    await actions.getByRole('button', { name: 'Edit', exact: true }).click();
    const email = dialog.getByRole('textbox', { name: 'Email', exact: true });
    await email.fill('not-an-email');
    expect(await save.isDisabled()).toBe(true);
    await email.fill(movedEmail);
    expect(await dialog.getByTestId('save-hint').textContent()).toContain('revoke');
    await save.click();
    const confirmation = dialog.getByTestId('revoke-confirmation');
    await confirmation.waitFor();
    expect(await confirmation.textContent()).toContain(`the email changes to ${movedEmail}`);
    // Nothing is saved before the confirmation.
    expect((await api('/auth/me', { token: targetToken })).status).toBe(200);
    await dialog.getByRole('button', { name: 'Revoke sessions and save', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByTestId('user-email').filter({ hasText: movedEmail }).waitFor();

    // The user's session is over; the change is in the audit log with the revoked entry.
    const me = await api<{ code: string }>('/auth/me', { token: targetToken });
    expect(me.status).toBe(401);
    const superadmin = await api<{ token: string }>('/auth/login', { method: 'POST', body: { email: 'superadmin@platform.demo.invalid', password: 'demo1234' } });
    const userId = new URL(page.url()).pathname.split('/').pop();
    const audit = await api<{ items: Array<{ meta: { changes: Record<string, { to: unknown }> } }> }>(`/ops/audit?action=admin.user.updated&resourceId=${userId}`, { token: superadmin.body.token });
    expect(audit.body.items[0]!.meta.changes).toMatchObject({ email: { to: movedEmail }, passwordChangedAt: { to: 'revoked' } });
  });
  it('offers the rule 5 actions by target: Edit always, Reset password for active and suspended users, Impersonate for all but SuperAdmins', async () => {
    const superadmin = (await api<{ token: string }>('/auth/login', { method: 'POST', body: { email: 'superadmin@platform.demo.invalid', password: 'demo1234' } })).body.token;
    const slug = await newOrg(`actions-${size.name}`);
    /** A demo user, put in the given role and status by the SuperAdmin through the API. */
    const target = async (role: string, orgSlug: string | undefined, change: { status?: string; platformRole?: string }) => {
      const token = (await api<{ token: string }>('/auth/demo-login', { method: 'POST', body: { role, orgSlug } })).body.token;
      const me = (await api<{ id: string; email: string }>('/auth/me', { token })).body;
      if (change.platformRole) expect((await api(`/admin/users/${me.id}/role`, { method: 'PATCH', token: superadmin, body: { platformRole: change.platformRole } })).status).toBe(200);
      if (change.status) expect((await api(`/admin/users/${me.id}`, { method: 'PATCH', token: superadmin, body: { status: change.status } })).status).toBe(200);
      return me;
    };
    const cases = [
      { who: await target('client', slug, {}), buttons: ['Edit', 'Reset password', 'Impersonate'], resetEnabled: true },
      { who: await target('ai_operator', slug, { status: 'suspended' }), buttons: ['Edit', 'Reset password', 'Impersonate'], resetEnabled: false },
      { who: await target('expert', slug, { status: 'deactivated' }), buttons: ['Edit', 'Impersonate'] },
      { who: await target('account_manager', slug, { platformRole: 'superadmin' }), buttons: ['Edit', 'Reset password'], resetEnabled: true },
    ];

    const page = await sessions.newPage(size);
    await page.goto('/login');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill('superadmin@platform.demo.invalid');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('demo1234');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await waitForPath(page, '/ops/clients');
    // The SuperAdmin's own page too: no Impersonate.
    const self = (await api<{ id: string; email: string }>('/auth/me', { token: superadmin })).body;
    cases.push({ who: self, buttons: ['Edit', 'Reset password'], resetEnabled: true });

    for (const { who, buttons, resetEnabled } of cases) {
      await page.goto(`/ops/users/${who.id}`);
      await page.getByTestId('user-email').filter({ hasText: who.email }).waitFor();
      const actions = page.getByTestId('user-actions');
      await actions.getByRole('button', { name: 'Edit', exact: true }).waitFor();
      expect(
        (await actions.getByRole('button').allTextContents()).map((t) => t.trim()),
        who.email,
      ).toEqual(buttons);
      if (resetEnabled !== undefined) {
        expect(await actions.getByRole('button', { name: 'Reset password', exact: true }).isEnabled(), who.email).toBe(resetEnabled);
        // A suspended user: the button says why it is disabled (API-MAP "Administration").
        expect(await actions.getByText('Cannot send a password reset to a non-active user', { exact: true }).count(), who.email).toBe(resetEnabled ? 0 : 1);
      }
    }
  });
});

describe.each(SCREEN_SIZES)('impersonation, the audit log and the client settings pages at $width x $height', (size) => {
  async function signIn(page: Page, email: string, landing: string) {
    await page.goto('/login');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('demo1234');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await waitForPath(page, landing);
  }

  it('impersonates a client with a reason, shows the banner, audits, and returns to the SuperAdmin on stop', async () => {
    const reason = `Checking what the client sees on a ${size.name}`;
    const page = await sessions.newPage(size);
    await signIn(page, 'superadmin@platform.demo.invalid', '/ops/clients');
    await page.goto('/ops/users?');
    await page.getByRole('searchbox', { name: 'Search' }).fill('client@acme');
    await expect.poll(() => page.getByTestId('user-row').count(), { timeout: TIMEOUT }).toBe(1);
    await page.locator('[data-testid="user-row"][data-email="client@acme.demo.invalid"]').getByRole('link').click();
    const own = claimsOf((await storedValues(page))['cos.token']!);
    await page.getByTestId('user-actions').getByRole('button', { name: 'Impersonate', exact: true }).click();
    const dialog = page.getByRole('dialog');
    const start = dialog.getByRole('button', { name: 'Start impersonating', exact: true });
    expect(await start.isDisabled()).toBe(true);
    await dialog.getByLabel(/^Reason/).fill(reason);
    await start.click();
    await waitForPath(page, '/client/chat');
    const banner = page.getByTestId('impersonation-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('client@acme.demo.invalid');
    expect(await page.getByTestId('current-user').textContent()).toContain('client@acme.demo.invalid');
    // The browser holds the impersonation token and nothing of the SuperAdmin's own session.
    const stored = await storedValues(page);
    const tokens = Object.values(stored).filter((v) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(v));
    expect(tokens).toEqual([stored['cos.token']]);
    expect(claimsOf(stored['cos.token']!)).toMatchObject({ impersonatorId: own.sub });
    expect(claimsOf(stored['cos.token']!).sid).not.toBe(own.sid);

    // The client's own settings, as the client: the profile with its two-factor section, the team.
    await page.goto('/client/settings/profile');
    await page.getByTestId('two-factor-status').waitFor();
    await page.goto('/client/settings/team');
    await page.getByTestId('members-table').waitFor();

    // The page was loaded afresh inside the client area, so going back downloads the ops pages.
    // Held back here past the SuperAdmin's /auth/me, the client area's guard sees the role change
    // first: the way back must still end on the impersonated user's page, not the ops landing.
    const slowChunks = async (route: Route) => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await route.continue();
    };
    await page.route('**/assets/*.js', slowChunks);
    // The server ends the impersonation session before it answers: the page's socket is closed and
    // the list it reloads is refused (401) while the answer is still on its way, held back here.
    const slowStop = async (route: Route) => {
      const response = await route.fetch();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await route.fulfill({ response });
    };
    await page.route('**/api/admin/impersonate/stop', slowStop);
    await banner.getByRole('button', { name: 'Stop impersonating', exact: true }).click();
    await waitForPath(page, /^\/ops\/users\/[0-9a-f-]{36}$/);
    await page.getByTestId('current-user').waitFor();
    await page.unroute('**/assets/*.js', slowChunks);
    await page.unroute('**/api/admin/impersonate/stop', slowStop);
    expect(await page.getByTestId('current-user').textContent()).toContain('superadmin@platform.demo.invalid');
    expect(await page.getByTestId('impersonation-banner').count()).toBe(0);
    // The server gave the SuperAdmin's own session back: the same session, a new token.
    const back = claimsOf((await storedValues(page))['cos.token']!);
    expect(back).toMatchObject({ sub: own.sub, sid: own.sid, platformRole: 'superadmin' });
    expect(back.impersonatorId).toBeUndefined();

    await page.goto('/ops/impersonation');
    const session = page.getByTestId('impersonation-row').filter({ hasText: reason });
    await session.waitFor();
    expect(await session.textContent()).toContain('Ended');

    await page.goto('/ops/audit?action=admin.impersonation.started');
    await page.locator('[data-testid="audit-row"][data-action="admin.impersonation.started"]').first().waitFor();
  });

  it('lets the org owner invite a member and shows the owner the team; 2FA set up from the profile', async () => {
    // The owner of an org of this size (two-factor sign-in is set up once per user).
    const slug = await newOrg(`team-${size.name}`);
    const owner = await api<{ token: string }>('/auth/demo-login', { method: 'POST', body: { role: 'org_admin', orgSlug: slug } });
    expect(owner.status).toBe(200);
    const page = await sessions.newPage(size);
    await page.goto('/login');
    await page.evaluate(`localStorage.setItem('cos.token', ${JSON.stringify(owner.body.token)})`);
    await page.goto('/client/chat');
    await showNavigation(page, size);
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('tab', { name: 'Team', exact: true }).click();
    await waitForPath(page, '/client/settings/team');
    const form = page.getByRole('form', { name: 'Invite a member' });
    await form.getByRole('textbox', { name: /^Email/ }).fill(`new-colleague@${slug}.example.com`);
    await form.getByRole('button', { name: 'Send invitation', exact: true }).click();
    await page.locator(`[data-testid="member-row"][data-email="new-colleague@${slug}.example.com"]`).waitFor();

    await page.getByRole('tab', { name: 'Profile', exact: true }).click();
    await waitForPath(page, '/client/settings/profile');
    await page.getByRole('button', { name: 'Set up two-factor sign-in', exact: true }).click();
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    const secret = ((await page.getByTestId('totp-secret').textContent()) ?? '').trim();
    const { generate } = await import('otplib');
    await page.getByRole('textbox', { name: 'Code from your app' }).fill(await generate({ secret }));
    await page.getByRole('button', { name: 'Turn on', exact: true }).click();
    await page.getByTestId('recovery-codes').waitFor();
    await expect.poll(() => page.getByTestId('two-factor-status').textContent(), { timeout: TIMEOUT }).toContain('10 recovery codes left');
  });
});
