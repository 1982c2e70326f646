import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSessions } from './support/sessions.js';

/**
 * Billing in the browser (spec 4.1, 4.6, 8.1): the org owner's /client/settings/billing (upcoming
 * invoice with its line, billing email, the payment method through the checkout URL, the dunning
 * notice after a failed payment), the SuperAdmin's /ops/billing with charts, the org view
 * /ops/billing?org=<id>, and /ops/analytics.
 */

const DEMO_PASSWORD = 'demo1234';
const OWNER_EMAIL = 'org_admin@acme.demo.invalid';
const SUPERADMIN_EMAIL = 'superadmin@platform.demo.invalid';
const WEBHOOK_SECRET = 'browser-billing-webhook-secret';
const TIMEOUT = 15_000;

const sessions = browserSessions({ timeout: TIMEOUT, env: { BILLING_WEBHOOK_SECRET: WEBHOOK_SECRET } });

async function signIn(page: Page, email: string, landing: string): Promise<void> {
  await page.goto('/login');
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === landing, { timeout: TIMEOUT });
}

async function acmeId(): Promise<string> {
  const res = await fetch(`${sessions.baseUrl}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: OWNER_EMAIL, password: DEMO_PASSWORD }) });
  return ((await res.json()) as { user: { orgMemberships: Array<{ orgId: string }> } }).user.orgMemberships[0]!.orgId;
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
    await upcoming.getByRole('button').first().click();
    await expect.poll(() => page.getByTestId('invoice-line').first().textContent()).toMatch(/Émilie Laurent/);

    await page.getByRole('textbox', { name: 'Billing email' }).fill('ap@acme.example.com');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

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
    const page = await sessions.newPage();
    await signIn(page, SUPERADMIN_EMAIL, '/ops/clients');
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Billing' }).click();
    await page.waitForURL((url) => url.pathname === '/ops/billing');
    const acme = page.getByTestId('payment-state-row').filter({ hasText: 'Acme' });
    await expect.poll(() => acme.textContent()).toMatch(/Payment failed: grace period/);
    await expectChart(page, 'chart-trend');
    for (const card of ['chart-top-orgs', 'chart-by-specialist', 'chart-by-purpose']) await page.getByTestId(card).waitFor();
    await expect.poll(() => page.getByTestId('platform-cost-total').textContent()).toMatch(/never invoiced/);

    await acme.getByRole('link').click();
    await page.waitForURL((url) => url.pathname === '/ops/billing' && url.searchParams.has('org'));
    await expect.poll(() => page.getByTestId('org-billing-name').textContent()).toMatch(/Acme/);
    for (const chart of ['chart-hourly-usage', 'chart-daily-usage', 'chart-org-cost-trend']) {
      await page.getByTestId(chart).waitFor();
    }
    await expectChart(page, 'chart-org-cost-trend');

    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Analytics' }).click();
    await page.waitForURL((url) => url.pathname === '/ops/analytics');
    await expectChart(page, 'chart-leverage');
  });
});
