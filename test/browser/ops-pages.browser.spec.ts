import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSessions } from './support/sessions.js';

/**
 * The account manager's ops pages and the client's settings at phone, laptop and desktop sizes (issue 18):
 * the clients list keeps its filters and tab in the address and names people, not ids; a
 * mailbox suspend, a restore, an unassignment and a rate change are confirmed first and
 * acknowledged after; numbers out of range are explained, never clamped; the client's billing page
 * names the Specialists it pays for with their rates; no page scrolls sideways; every control
 * has an accessible name.
 */

const PASSWORD = 'demo1234';
const AM = 'account_manager@platform.demo.invalid';
const SUPERADMIN = 'superadmin@platform.demo.invalid';
const OWNER = 'org_admin@acme.demo.invalid';
const TIMEOUT = 15_000;
const SIZES = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
] as const;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const sessions = browserSessions({ timeout: TIMEOUT });

// What the callbacks of page.evaluate see in the browser (the tests compile without the DOM library).
declare const document: any;
declare const window: any;
declare function getComputedStyle(element: any): { overflowX: string };
type Element = any;

async function api<T>(path: string, token: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(`${sessions.baseUrl}/api${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, ...(init.body !== undefined && { 'content-type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as T };
}

async function token(email: string): Promise<string> {
  const res = await fetch(`${sessions.baseUrl}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
  return ((await res.json()) as { token: string }).token;
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto('/login');
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname !== '/login', { timeout: TIMEOUT });
}

async function heading(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

/**
 * The page's own content (the shell's header aside) fits the window: nothing scrolls sideways.
 * A wide table may scroll inside its own card; nothing else sticks out.
 */
async function expectNoSidewaysScroll(page: Page, where: string): Promise<void> {
  const widths = await page.evaluate(() => {
    const main = document.querySelector('main')!;
    const scrolls = (e: Element) => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(e).overflowX);
    const insideScroller = (e: Element) => {
      for (let p = e.parentElement; p && p !== main; p = p.parentElement) if (scrolls(p)) return true;
      return false;
    };
    const outside = [...main.querySelectorAll('*')].filter((e) => !insideScroller(e) && e.getBoundingClientRect().width > 0 && e.getBoundingClientRect().right > window.innerWidth + 1);
    return {
      scroll: main.scrollWidth,
      client: main.clientWidth,
      outside: outside.slice(0, 3).map((e) => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} ${e.getAttribute('data-testid') ?? ''} right=${Math.round(e.getBoundingClientRect().right)}`),
    };
  });
  expect(widths.scroll, `${where}: content wider than the page`).toBeLessThanOrEqual(widths.client + 1);
  expect(widths.outside, `${where}: something sticks out of the window`).toEqual([]);
}

/**
 * axe-core on the page's content: no serious or critical violation (accessible names on every
 * control and colour contrast among them).
 */
async function expectAccessible(page: Page, where: string): Promise<void> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const result = await (
      window as unknown as { axe: { run: (el: Element, o: unknown) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }
    ).axe.run(document.querySelector('main')!, {
      resultTypes: ['violations'],
    });
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  expect(violations, `${where}: accessibility`).toEqual([]);
}

async function checkPage(page: Page, path: string, title: string | RegExp, ready?: string): Promise<void> {
  await page.goto(path);
  await heading(page, title);
  if (ready) await page.getByTestId(ready).first().waitFor();
  await expectNoSidewaysScroll(page, path);
  await expectAccessible(page, path);
}

/** A fresh active org of the demo AM with the given catalog Specialists (by slug) assigned. */
async function activeOrg(am: string, slug: string, specialists: string[]): Promise<{ id: string; name: string }> {
  const name = `Ops Test ${slug}`;
  const org = await api<{ id: string }>('/am/orgs', am, {
    method: 'POST',
    body: {
      legalName: name,
      slug,
      industry: 'technology',
      corporateDomains: [`${slug}.example.com`],
      adminEmail: `admin@${slug}.example.com`,
      website: `https://${slug}.example.com`,
      timezone: 'UTC',
    },
  });
  expect(org.status).toBe(201);
  const pool = (await api<{ items: Array<{ id: string; slug: string }> }>('/am/specialists?limit=100', am)).body.items;
  for (const s of specialists) expect((await api(`/am/orgs/${org.body.id}/specialist`, am, { method: 'POST', body: { specialistId: pool.find((p) => p.slug === s)!.id } })).status).toBe(201);
  expect((await api(`/am/orgs/${org.body.id}/finish`, am, { method: 'POST' })).status).toBe(200);
  return { id: org.body.id, name };
}

async function assignments(am: string, orgId: string): Promise<Array<{ id: string; specialist: { name: string }; mailboxSuspendedAt: string | null; monthlyRate: number | null }>> {
  return (await api<{ items: Array<{ id: string; specialist: { name: string }; mailboxSuspendedAt: string | null; monthlyRate: number | null }> }>(`/am/orgs/${orgId}/specialist-assignments`, am)).body
    .items;
}

describe('the clients list', () => {
  it('keeps its tab, status and search in the address, names the account manager and shows no ids, at phone, laptop and desktop sizes', async () => {
    const page = await sessions.newPage();
    await signIn(page, AM);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.goto('/ops/clients');
      await heading(page, 'Clients');
      const acme = page.getByTestId('client-row').filter({ hasText: 'Acme Corporation' });
      await acme.waitFor();
      expect(await acme.getByTestId('client-am').textContent()).toBe('Demo Account Manager (you)');
      expect(await page.getByTestId('clients-table').innerText()).not.toMatch(/\b[0-9a-f]{8}\b/);
      await expectNoSidewaysScroll(page, `/ops/clients at ${size.width}`);
      await expectAccessible(page, `/ops/clients at ${size.width}`);

      await page.getByRole('tab', { name: 'My clients', exact: true }).click();
      await page.waitForURL((url) => url.searchParams.get('tab') === 'mine');
      await page.getByRole('combobox', { name: 'Status', exact: true }).click();
      await page.getByRole('option', { name: 'Active', exact: true }).click();
      await page.waitForURL((url) => url.searchParams.get('status') === 'active');
      await page.getByRole('searchbox', { name: 'Search', exact: true }).fill('acme');
      await page.waitForURL((url) => url.searchParams.get('q') === 'acme');
      await acme.waitFor();

      // A reload (or a shared link) opens the same view.
      await page.reload();
      await heading(page, 'Clients');
      expect(await page.getByRole('tab', { name: 'My clients', exact: true }).getAttribute('aria-selected')).toBe('true');
      expect(await page.getByRole('combobox', { name: 'Status', exact: true }).inputValue()).toBe('Active');
      expect(await page.getByRole('searchbox', { name: 'Search', exact: true }).inputValue()).toBe('acme');
      await acme.waitFor();

      await page.getByRole('searchbox', { name: 'Search', exact: true }).fill('no-such-client-anywhere');
      await page.getByTestId('clients-empty').waitFor();
      await page.getByRole('button', { name: 'Clear filters', exact: true }).click();
      await page.waitForURL((url) => !url.searchParams.has('q') && !url.searchParams.has('status') && url.searchParams.get('tab') === 'mine');
      await acme.waitFor();
    }
  });
});

describe('confirmations before actions that stop mail or change money', () => {
  it('asks before suspending a mailbox, says what Restore does with held mail, and confirms each with a toast', async () => {
    const am = await token(AM);
    const org = await activeOrg(am, `mbx-${Date.now().toString(36)}`, ['emilie-laurent']);
    const [osa] = await assignments(am, org.id);
    expect((await api(`/am/orgs/${org.id}/specialist-assignments/${osa!.id}/provision`, am, { method: 'POST' })).status).toBe(202);

    const page = await sessions.newPage();
    await signIn(page, AM);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.goto(`/ops/clients/${org.id}/specialists/${osa!.id}`);
      const workspace = page.getByTestId('workspace-section');
      await workspace.locator('[data-testid="mailbox-status"][data-state="provisioned"]').waitFor({ timeout: 30_000 });
      await expectNoSidewaysScroll(page, `OSA detail at ${size.width}`);
      await expectAccessible(page, `OSA detail at ${size.width}`);

      await workspace.getByRole('button', { name: 'Suspend', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: `Suspend the mailbox of ${osa!.specialist.name}?` });
      await dialog.waitFor();
      expect(await dialog.innerText()).toMatch(/no longer received/);
      expect(await dialog.innerText()).toMatch(/replies written meanwhile are held/);
      // Cancel changes nothing.
      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      expect((await assignments(am, org.id))[0]!.mailboxSuspendedAt).toBeNull();

      await workspace.getByRole('button', { name: 'Suspend', exact: true }).click();
      await dialog.getByRole('button', { name: 'Suspend mailbox', exact: true }).click();
      await workspace.locator('[data-testid="mailbox-status"][data-state="suspended"]').waitFor();
      await page.getByText('Mailbox suspended: mail stops both ways until it is restored.').waitFor();
      expect((await assignments(am, org.id))[0]!.mailboxSuspendedAt).not.toBeNull();

      await workspace.getByRole('button', { name: 'Restore', exact: true }).click();
      const restore = page.getByRole('dialog', { name: `Restore the mailbox of ${osa!.specialist.name}?` });
      expect(await restore.innerText()).toMatch(/replies held while it was suspended are sent now/);
      await restore.getByRole('button', { name: 'Restore mailbox', exact: true }).click();
      await workspace.locator('[data-testid="mailbox-status"][data-state="provisioned"]').waitFor();
      await page.getByText('Mailbox restored: the replies held meanwhile are being sent.').waitFor();
    }
  });

  it('asks before unassigning a Specialist on the Specialists tab', async () => {
    const am = await token(AM);
    const page = await sessions.newPage();
    await signIn(page, AM);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      const org = await activeOrg(am, `una-${size.width}-${Date.now().toString(36)}`, ['maya-chen']);
      await page.goto(`/ops/clients/${org.id}?tab=specialists`);
      const row = page.getByTestId('specialist-row').filter({ hasText: 'Maya Chen' });
      await row.waitFor();
      await expectNoSidewaysScroll(page, `Specialists tab at ${size.width}`);
      await expectAccessible(page, `Specialists tab at ${size.width}`);

      await row.getByRole('button', { name: 'Unassign Maya Chen', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Unassign Maya Chen?' });
      expect(await dialog.getByTestId('unassign-consequence').innerText()).toMatch(/stops answering this client and its fee stops today/);
      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await assignments(am, org.id)).toHaveLength(1);

      await row.getByRole('button', { name: 'Unassign Maya Chen', exact: true }).click();
      await dialog.getByRole('button', { name: 'Unassign', exact: true }).click();
      await page.getByText('Maya Chen is unassigned from this org.').waitFor();
      await page.getByText('No Specialist is assigned yet.').waitFor();
      expect(await assignments(am, org.id)).toEqual([]);
    }
  });

  it('asks before unassigning and before a rate change on the Specialist step, and explains a rate out of range instead of changing it', async () => {
    const am = await token(AM);
    const org = await activeOrg(am, `stp-${Date.now().toString(36)}`, ['maya-chen', 'omar-haddad']);
    const page = await sessions.newPage();
    await signIn(page, AM);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.goto(`/ops/clients/${org.id}/setup/step-2`);
      await heading(page, 'Specialist assignment');
      const maya = page.getByTestId('specialist-option').filter({ hasText: 'Maya Chen' });
      await maya.waitFor();
      await expectNoSidewaysScroll(page, `step 2 at ${size.width}`);
      await expectAccessible(page, `step 2 at ${size.width}`);

      // Out of range: said beside the field, the number kept as typed.
      const rate = maya.getByRole('textbox', { name: 'Monthly rate override' });
      await rate.fill('100000');
      await rate.blur();
      await maya.getByText('Must be between 1 and 99,999').waitFor();
      expect(await rate.inputValue()).toMatch(/^100,?000$/);
      await rate.fill('');
    }

    // A rate change is confirmed, with the old and the new rate.
    const maya = page.getByTestId('specialist-option').filter({ hasText: 'Maya Chen' });
    await maya.getByRole('textbox', { name: 'Monthly rate override' }).fill('1500');
    await maya.getByRole('textbox', { name: 'Override reason' }).fill('renewal');
    // Deselecting Omar unassigns him: the same dialog asks for both.
    await page.getByTestId('specialist-option').filter({ hasText: 'Omar Haddad' }).getByRole('checkbox', { name: 'Omar Haddad' }).uncheck();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Unassign Specialists and change rates?' });
    const text = await dialog.getByTestId('confirm-plan').innerText();
    expect(text).toMatch(/Unassign Omar Haddad:/);
    expect(text).toMatch(/Maya Chen:.*to \$1,500\.00 \/ month/);
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await assignments(am, org.id)).map((a) => a.specialist.name).sort()).toEqual(['Maya Chen', 'Omar Haddad']);
    expect((await assignments(am, org.id)).every((a) => a.monthlyRate === null)).toBe(true);

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await dialog.getByRole('button', { name: 'Unassign and save', exact: true }).click();
    await page.waitForURL((url) => url.pathname === `/ops/clients/${org.id}` && url.searchParams.get('tab') === 'specialists');
    await page.getByText('The Specialists of this org are saved.').waitFor();
    const after = await assignments(am, org.id);
    expect(after.map((a) => [a.specialist.name, a.monthlyRate])).toEqual([['Maya Chen', 1500]]);
  });
});

describe("the client's billing page", () => {
  it('names the Specialists the client pays for with their monthly rate and currency, the month and no provider id', async () => {
    const owner = await token(OWNER);
    const me = (await api<{ orgMemberships: Array<{ orgId: string }> }>('/auth/me', owner)).body;
    const billing = (await api<{ specialists: Array<{ name: string; monthlyRateCents: number | null; currency: string | null }> }>(`/orgs/${me.orgMemberships[0]!.orgId}/billing`, owner)).body;
    expect(billing.specialists.length).toBeGreaterThan(0);

    const page = await sessions.newPage();
    await signIn(page, OWNER);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.goto('/client/settings/billing');
      const rows = page.getByTestId('billed-specialist');
      await rows.first().waitFor();
      expect(await rows.count()).toBe(billing.specialists.length);
      for (const s of billing.specialists) {
        const row = rows.filter({ hasText: s.name });
        const expected =
          s.monthlyRateCents === null ? 'Not billed' : `${new Intl.NumberFormat('en-US', { style: 'currency', currency: s.currency! }).format(s.monthlyRateCents / 100)} / month (${s.currency})`;
        expect(await row.getByTestId('billed-specialist-rate').innerText()).toBe(expected);
      }
      expect(await page.getByTestId('billing-period').innerText()).toMatch(/ to .*what you will be invoiced/);
      const text = await page.locator('main').innerText();
      expect(text).not.toMatch(/manual_cus|customer|provider/i);
      expect(text).not.toMatch(/\b[0-9a-f]{8}-[0-9a-f]{4}/);
      await expectNoSidewaysScroll(page, `/client/settings/billing at ${size.width}`);
      await expectAccessible(page, `/client/settings/billing at ${size.width}`);
    }
  });
});

describe('every page of the area at phone, laptop and desktop sizes', () => {
  it('the account manager: clients, an org, the wizard, billing, quarantine and notifications', async () => {
    const am = await token(AM);
    const acmeId = (await api<{ orgMemberships: Array<{ orgId: string }> }>('/auth/me', await token(OWNER))).body.orgMemberships[0]!.orgId;
    const [acmeOsa] = await assignments(am, acmeId);
    const pending = await api<{ id: string }>('/am/orgs', am, {
      method: 'POST',
      body: {
        legalName: 'Pending Pages Co',
        slug: `pend-${Date.now().toString(36)}`,
        industry: 'technology',
        corporateDomains: ['pending-pages.example.com'],
        adminEmail: 'a@pending-pages.example.com',
        website: 'https://pending-pages.example.com',
        timezone: 'UTC',
      },
    });
    const page = await sessions.newPage();
    await signIn(page, AM);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await checkPage(page, '/ops/notifications', 'Notifications');
      await checkPage(page, `/ops/clients/${acmeId}`, 'Acme Corporation', 'company-summary');
      await checkPage(page, `/ops/clients/${acmeId}?tab=channels`, 'Acme Corporation', 'channel-card');
      await checkPage(page, `/ops/clients/${acmeId}/specialists/${acmeOsa!.id}`, acmeOsa!.specialist.name, 'workspace-section');
      await checkPage(page, '/ops/clients/new', 'New client');
      await checkPage(page, `/ops/clients/${pending.body.id}/setup/step-1`, 'Company info');
      await checkPage(page, `/ops/clients/${pending.body.id}/setup/step-3`, 'Expert assignment', 'coverage-note');
      await checkPage(page, `/ops/clients/${pending.body.id}/setup/step-4`, 'Client invite', 'phase0-status');
      await checkPage(page, '/ops/billing', 'Billing', 'payment-state-row');
      await checkPage(page, '/ops/channels/quarantine', 'Quarantined ingress');
    }
  });

  it('the superadmin: billing with charts, one org, analytics; filters and range in the address', async () => {
    const acmeId = (await api<{ orgMemberships: Array<{ orgId: string }> }>('/auth/me', await token(OWNER))).body.orgMemberships[0]!.orgId;
    const page = await sessions.newPage();
    await signIn(page, SUPERADMIN);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await checkPage(page, '/ops/billing', 'Billing', 'payment-state-row');
      await checkPage(page, `/ops/billing?org=${acmeId}`, 'Billing', 'org-billing-name');
      await checkPage(page, '/ops/analytics', 'Analytics', 'autonomy-total');
    }
    await page.goto('/ops/analytics');
    await page.getByTestId('autonomy').getByText('7 days', { exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get('days') === '7');
    await page.goto('/ops/billing');
    await page.getByRole('combobox', { name: 'Payment', exact: true }).click();
    await page.getByRole('option', { name: 'Suspended for non-payment', exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get('payment') === 'suspended');
    await page.getByTestId('payment-states-empty').waitFor();
    await page.reload();
    expect(await page.getByRole('combobox', { name: 'Payment', exact: true }).inputValue()).toBe('Suspended for non-payment');
  });

  it('the client owner: channels, team and billing settings in plain words', async () => {
    const page = await sessions.newPage();
    await signIn(page, OWNER);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await checkPage(page, '/client/settings/channels', 'Settings', 'channel-card');
      expect(await page.locator('main').innerText()).not.toMatch(/breaker|quarantin|webhook secret|slug/i);
      await checkPage(page, '/client/settings/team', 'Settings', 'members-table');
      await checkPage(page, '/client/settings/billing', 'Settings', 'billed-specialists');
    }
  });
});
