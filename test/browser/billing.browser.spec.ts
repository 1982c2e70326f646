import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSessions } from './support/sessions.js';

/**
 * Billing in the browser (spec 4.1, 4.6, 8.1): the org owner's /client/settings/billing (upcoming
 * invoice with its line, billing email, the payment method through the checkout URL, the dunning
 * notice after a failed payment), the SuperAdmin's /ops/billing with charts, the org view
 * /ops/billing?org=<id>, and /ops/analytics, with the autonomous handling rate at phone, laptop and desktop sizes.
 */

const DEMO_PASSWORD = 'demo1234';
const OWNER_EMAIL = 'org_admin@acme.demo.invalid';
const SUPERADMIN_EMAIL = 'superadmin@platform.demo.invalid';
const CLIENT_EMAIL = 'client@acme.demo.invalid';
const EXPERT_EMAIL = 'expert@platform.demo.invalid';
const WEBHOOK_SECRET = 'browser-billing-webhook-secret';
const TIMEOUT = 15_000;

interface HandlingCounts {
  conversations: number;
  autonomous: number;
  autoResponded: number;
}
interface AutonomousHandling {
  total: HandlingCounts;
  byOrg: Array<HandlingCounts & { name: string }>;
  bySpecialist: Array<HandlingCounts & { name: string }>;
}

const sessions = browserSessions({ timeout: TIMEOUT, env: { BILLING_WEBHOOK_SECRET: WEBHOOK_SECRET } });

async function signIn(page: Page, email: string, landing: string): Promise<void> {
  await page.goto('/login');
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === landing, { timeout: TIMEOUT });
}

async function login(email: string): Promise<{ token: string; user: { orgMemberships: Array<{ orgId: string }> } }> {
  const res = await fetch(`${sessions.baseUrl}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password: DEMO_PASSWORD }) });
  return (await res.json()) as { token: string; user: { orgMemberships: Array<{ orgId: string }> } };
}

async function acmeId(): Promise<string> {
  return (await login(OWNER_EMAIL)).user.orgMemberships[0]!.orgId;
}

async function post(path: string, token: string, body: unknown): Promise<{ id: string }> {
  const res = await fetch(`${sessions.baseUrl}/api/${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string };
}

/** The section fits the viewport's width: nothing to scroll sideways on a phone. */
async function expectWithin(page: Page, testId: string, width: number): Promise<void> {
  const box = (await page.getByTestId(testId).boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(width);
}

async function paymentFailed(orgId: string): Promise<void> {
  const body = JSON.stringify({ id: `evt_browser_${Date.now()}`, type: 'payment_failed', data: { orgId, failureReason: 'card declined' } });
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', WEBHOOK_SECRET).update(`${t}.${body}`).digest('hex');
  const res = await fetch(`${sessions.baseUrl}/api/billing/provider/webhook`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Billing-Signature': `t=${t},v1=${v1}` }, body });
  expect(res.status).toBe(200);
}

/** A chart drawn by the charting library (an SVG surface), inside the card of that test id. */
async function expectChart(page: Page, testId: string): Promise<void> {
  await page.locator(`[data-testid="${testId}"] svg.recharts-surface`).first().waitFor({ timeout: TIMEOUT });
}

describe('billing pages', () => {
  it("shows the owner the month's invoice, saves the billing email, records a payment method and warns after a failed payment", async () => {
    const page = await sessions.newPage();
    await signIn(page, OWNER_EMAIL, '/client/chat');
    await page.goto('/client/settings/billing');
    await expect.poll(() => page.getByTestId('payment-state').textContent()).toBe('In good standing');
    await expect.poll(() => page.getByRole('tab', { name: 'Billing' }).getAttribute('aria-selected')).toBe('true');

    const upcoming = page.getByTestId('invoice').first();
    await expect.poll(() => upcoming.textContent()).toMatch(/Upcoming/);
    await expect.poll(() => upcoming.getByTestId('invoice-currency').textContent()).toBe('USD');
    await upcoming.getByRole('button').first().click();
    // The demo org pays for two Specialists: Émilie's line is one of them.
    await page.getByTestId('invoice-line').filter({ hasText: 'Émilie Laurent' }).first().waitFor({ timeout: TIMEOUT });

    await page.getByRole('textbox', { name: 'Billing email' }).fill('ap@acme.example.com');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Invoices now go to ap@acme.example.com.').waitFor();

    await page.getByRole('button', { name: 'Add payment method' }).click();
    await page.waitForURL((url) => url.pathname === '/client/settings/billing/payment-method' && url.searchParams.has('orgId'));
    await page.getByRole('textbox', { name: /Reference/ }).fill('Wire from First Acme Bank');
    await page.getByRole('button', { name: 'Save payment method' }).click();
    await page.waitForURL((url) => url.pathname === '/client/settings/billing');
    await expect.poll(() => page.getByTestId('payment-method').textContent()).toMatch(/Wire from First Acme Bank/);

    await paymentFailed(await acmeId());
    await page.reload();
    await expect.poll(() => page.getByTestId('dunning-alert').textContent()).toMatch(/A payment failed.*card declined/);
    await expect.poll(() => page.getByTestId('payment-state').textContent()).toBe('Payment failed: grace period');
  });

  it('gives the SuperAdmin payment states and cost charts at /ops/billing, one org at /ops/billing?org=<id>, and /ops/analytics', async () => {
    // A catalog Specialist without a rate, assigned to Acme without an override: billing skips it and says so.
    const { token: superadmin } = await login(SUPERADMIN_EMAIL);
    const rateless = await post('specialists', superadmin, { name: 'Rhea Rateless', slug: 'rhea-rateless', persona: 'x' });
    await post(`am/orgs/${await acmeId()}/specialist`, superadmin, { specialistId: rateless.id });

    const page = await sessions.newPage();
    await signIn(page, SUPERADMIN_EMAIL, '/ops/clients');
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Billing' }).click();
    await page.waitForURL((url) => url.pathname === '/ops/billing');
    const acme = page.getByTestId('payment-state-row').filter({ hasText: 'Acme' });
    await expect.poll(() => acme.textContent()).toMatch(/Payment failed: grace period/);
    await expect.poll(() => acme.getByTestId('skipped-instance').textContent()).toBe('Not billed: Rhea Rateless (no rate)');
    await expectChart(page, 'chart-trend');
    for (const card of ['chart-top-orgs', 'chart-by-specialist', 'chart-by-purpose']) await page.getByTestId(card).waitFor();
    await expect.poll(() => page.getByTestId('platform-cost-total').textContent()).toMatch(/never invoiced/);

    await acme.getByRole('link').click();
    await page.waitForURL((url) => url.pathname === '/ops/billing' && url.searchParams.has('org'));
    await expect.poll(() => page.getByTestId('org-billing-name').textContent()).toMatch(/Acme/);
    await expect.poll(() => page.getByTestId('skipped-instance').textContent()).toBe('Not billed: Rhea Rateless (no rate)');
    for (const chart of ['chart-hourly-usage', 'chart-daily-usage', 'chart-org-cost-trend']) {
      await page.getByTestId(chart).waitFor();
    }
    await expectChart(page, 'chart-org-cost-trend');

    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Analytics' }).click();
    await page.waitForURL((url) => url.pathname === '/ops/analytics');
    await expectChart(page, 'chart-leverage');
  });

  it('shows the autonomous handling rate with its counts on /ops/analytics and /ops/billing?org=<id>, at phone, laptop and desktop sizes', async () => {
    // The demo org already has a month of conversations: the counts below are what it had plus two new threads.
    const { token: superadmin } = await login(SUPERADMIN_EMAIL);
    const workload = async () => {
      const res = await fetch(`${sessions.baseUrl}/api/ops/analytics/expert-workload`, { headers: { Authorization: `Bearer ${superadmin}` } });
      return ((await res.json()) as { autonomousHandling: AutonomousHandling }).autonomousHandling;
    };
    const before = await workload();
    const plusTwo = (r: HandlingCounts): HandlingCounts => ({ conversations: r.conversations + 2, autonomous: r.autonomous + 1, autoResponded: r.autoResponded + 2 });
    const total = plusTwo(before.total);
    const acmeRow = plusTwo(before.byOrg.find((o) => o.name.includes('Acme')) ?? { conversations: 0, autonomous: 0, autoResponded: 0 });
    const emilie = plusTwo(before.bySpecialist.find((o) => o.name === 'Émilie Laurent') ?? { conversations: 0, autonomous: 0, autoResponded: 0 });
    // A rate as the page writes it: at most one decimal (2 of 3 is 66.7%).
    const PERCENT = '\\d+(?:\\.\\d)?%';
    const sentence = (scope: string, r: HandlingCounts) =>
      new RegExp(`^${scope}: ${PERCENT} of ${r.conversations} conversations handled by the Specialist alone \\(${r.autonomous}\\); the Specialist answered ${r.autoResponded}\\.$`);
    const row = (r: HandlingCounts) => new RegExp(`${PERCENT} \\(${r.autonomous} of ${r.conversations}\\)${r.autoResponded}$`);

    // Two acme threads: one the Specialist handles alone, one an Expert answers as well.
    const client = (await login(CLIENT_EMAIL)).token;
    await post('conversations', client, { message: 'When do you open?' });
    const helped = await post('conversations', client, { message: 'Please call me.' });
    await post(`conversations/${helped.id}/messages`, (await login(EXPERT_EMAIL)).token, { content: 'Calling you at 3 pm.' });
    const orgId = await acmeId();

    const page = await sessions.newPage();
    await signIn(page, SUPERADMIN_EMAIL, '/ops/clients');
    for (const [width, height] of [
      [390, 844],
      [1280, 800],
      [1440, 900],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.goto('/ops/analytics');
      const totalLine = page.getByTestId('autonomy-total');
      await expect.poll(() => totalLine.textContent()).toMatch(sentence('Platform wide', total));
      expect(await totalLine.isVisible()).toBe(true);
      await expect.poll(() => page.getByTestId('autonomy-org-row').filter({ hasText: 'Acme' }).textContent()).toMatch(row(acmeRow));
      expect(await page.getByTestId('autonomy-specialist-row').filter({ hasText: 'Émilie Laurent' }).textContent()).toMatch(row(emilie));
      await expectWithin(page, 'autonomy', width);

      await page.goto(`/ops/billing?org=${orgId}`);
      await expect.poll(() => page.getByTestId('autonomy-total').textContent()).toMatch(sentence('This org', acmeRow));
      expect(await page.getByTestId('autonomy-specialist-row').filter({ hasText: 'Émilie Laurent' }).textContent()).toMatch(row(emilie));
      await expectWithin(page, 'autonomy', width);
    }

    // Another org without conversations: no rate, a dash rather than 0 %.
    const am = (await login('account_manager@platform.demo.invalid')).token;
    const other = await post('am/orgs', am, {
      legalName: 'Initech',
      slug: 'initech',
      industry: 'technology',
      corporateDomains: ['initech.example.com'],
      adminEmail: 'bill@initech.example.com',
      website: 'https://initech.example.com',
      timezone: 'UTC',
    });
    await page.goto(`/ops/billing?org=${other.id}`);
    await expect.poll(() => page.getByTestId('autonomy-total').textContent()).toBe('This org: — (no conversations in this range).');
    expect(await page.getByTestId('autonomy-specialist-row').count()).toBe(0);
  });
});
