import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstNameOf, previewWorkspaceAlias } from '../../src/contracts/orgs.js';
import { WIZARD_STEPS } from '../../web/src/pages/ops/wizard/steps.js';
import { png } from '../support/images.js';
import { launchChromium } from './support/browser.js';
import { startServer, type RunningServer } from './support/server.js';

/**
 * Step-count test fixture (spec 4.1): the wizard progress shows 3 steps. A change to the step
 * count must change this fixture in the same change.
 */
const WIZARD_STEP_COUNT = 3;
const WIZARD_STEP_LABELS = ['Company info', 'Expert assignment', 'Client invite'];

const DEMO_PASSWORD = 'demo1234';
const AM_EMAIL = 'account_manager@platform.demo.invalid';
const TIMEOUT = 15_000;
/** Unique per run, so the test never collides with an org of an earlier run on a shared server. */
const SLUG = `wiz-${Date.now().toString(36)}`;
const LEGAL_NAME = `Wizard Test ${SLUG}`;
/** Not the default: the preview must use the configured domain, also before the org's first assignment (spec 2.3.1 rule 5). */
const WORKSPACE_DOMAIN = 'mail.wizard-test.example.net';
const EMILIE_ALIAS = `emilie.${SLUG}@${WORKSPACE_DOMAIN}`;
/**
 * The client-side preview of spec 2.3.1 rule 5 lowercases and keeps [a-z0-9-] without folding
 * diacritics, so "Émilie" previews as "milie": it may differ from the stored (authoritative) alias.
 */
const EMILIE_PREVIEW = previewWorkspaceAlias(firstNameOf('Émilie Laurent'), SLUG, WORKSPACE_DOMAIN)!;

let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];
let orgId = '';

// One session for the whole walk through the wizard: each test continues where the last stopped.
beforeAll(async () => {
  server = await startServer({ WORKSPACE_DOMAIN });
  browser = await launchChromium();
  // The walk at a desktop's size; step 1's logo is driven at all three sizes (the screens test
  // checks every step's layout and accessibility at each).
  context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  page.on('pageerror', (error) => pageErrors.push(error.message));
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.stop();
  expect(pageErrors, 'uncaught errors in the page').toEqual([]);
});

/** The API as the demo AM (signed in anew: a token of its own). */
async function amApi(path: string): Promise<{ items: unknown[] }> {
  const login = await fetch(`${server.baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: AM_EMAIL, password: DEMO_PASSWORD }),
  });
  const { token } = (await login.json()) as { token: string };
  const res = await fetch(`${server.baseUrl}/api${path}`, { headers: { authorization: `Bearer ${token}` } });
  return (await res.json()) as { items: unknown[] };
}

async function waitForPath(path: string | RegExp): Promise<void> {
  await page.waitForURL((url) => (typeof path === 'string' ? url.pathname === path : path.test(url.pathname)), { timeout: TIMEOUT });
}

/** A text field by its accessible name (the required asterisk is not part of it). */
function field(name: string) {
  return page.getByRole('textbox', { name, exact: true });
}

/** Chooses `data` in the page's (only) file input, as the logo field's Upload button would. */
async function chooseLogo(data: Buffer, name = 'logo.png', mimeType = 'image/png'): Promise<void> {
  await page.locator('input[type="file"]').setInputFiles({ name, mimeType, buffer: data });
}

/** The logo image inside `scope`, decoded by the browser (not merely an <img> element). */
async function expectRenderedLogo(testId: string, scope = page.locator('body')): Promise<void> {
  const image = scope.getByTestId(testId).first();
  await image.waitFor();
  await expect.poll(() => image.evaluate((img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth), { timeout: TIMEOUT }).toBeGreaterThan(0);
}

/** The error message shown under a field (Mantine's, named by the input's aria-describedby); '' when none. */
async function errorOf(input: ReturnType<Page['locator']>): Promise<string> {
  const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(/\s+/).filter((id) => id.endsWith('-error'));
  const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()));
  return texts.join(' ').trim();
}

async function heading(name: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
}

/** Picks `option` in the Mantine select labelled `label`. */
async function selectOption(label: string, option: string, search?: string): Promise<void> {
  const input = page.getByRole('combobox', { name: label, exact: true });
  await input.click();
  if (search !== undefined) await input.fill(search);
  await page.getByRole('option', { name: option, exact: true }).click();
}

async function expectProgress(current: string): Promise<void> {
  const steps = page.getByTestId('wizard-progress').getByTestId('wizard-step');
  await steps.first().waitFor();
  expect(await steps.count()).toBe(WIZARD_STEP_COUNT);
  for (const [index, label] of WIZARD_STEP_LABELS.entries()) expect(await steps.nth(index).textContent()).toContain(label);
  expect(await page.getByTestId('wizard-progress').locator('[aria-current="step"]').textContent()).toContain(current);
}

describe('the wizard step-count fixture', () => {
  it('has 3 steps: Company info, Expert assignment, Client invite (spec 1, 4.1, 9.6)', () => {
    expect(WIZARD_STEPS).toHaveLength(WIZARD_STEP_COUNT);
    expect(WIZARD_STEPS.map((step) => step.label)).toEqual(WIZARD_STEP_LABELS);
    expect(WIZARD_STEPS.map((step) => step.route)).toEqual(['step-1', 'step-3', 'step-4']);
  });
});

describe('the account manager sets up a client org', () => {
  it('signs in and opens the New client form from the clients list', async () => {
    await page.goto('/login');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(AM_EMAIL);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await waitForPath('/ops/clients');
    await heading('Clients');
    // The demo org is listed.
    await page.getByTestId('client-row').filter({ hasText: 'Acme Corporation' }).waitFor();

    await page.getByRole('link', { name: 'New client', exact: true }).click();
    await waitForPath('/ops/clients/new');
    await heading('New client');
    await expectProgress('Company info');
  });

  it('shows every error of step 1 at once, at phone, laptop and desktop sizes', async () => {
    for (const size of [
      { width: 390, height: 844 },
      { width: 1280, height: 800 },
      { width: 1440, height: 900 },
    ]) {
      await page.setViewportSize(size);
      await page.goto('/ops/clients/new');
      await heading('New client');
      // Nothing but a wrong admin email and website: every required or invalid field is flagged in one submit.
      await field('Admin email').fill('not-an-email');
      await field('Website').fill('example');
      await page.getByRole('button', { name: 'Create and continue', exact: true }).click();
      const flagged = {
        'Legal name': page.getByRole('textbox', { name: 'Legal name', exact: true }),
        Subdomain: field('Subdomain'),
        Industry: page.getByRole('combobox', { name: 'Industry', exact: true }),
        'Primary domain': field('Primary domain'),
        'Admin email': field('Admin email'),
        Website: field('Website'),
      };
      for (const [name, input] of Object.entries(flagged)) {
        await expect.poll(() => input.getAttribute('aria-invalid'), { timeout: TIMEOUT, message: `${name} at ${size.width}px` }).toBe('true');
        expect(await errorOf(input), `${name} at ${size.width}px`).not.toBe('');
      }
      expect(await errorOf(flagged.Industry)).toBe('Pick an industry');
      expect(await errorOf(flagged['Primary domain'])).toBe('Required');
      expect(new URL(page.url()).pathname).toBe('/ops/clients/new');
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('/ops/clients/new');
    await heading('New client');
  });

  it('checks the subdomain in real time', async () => {
    const slug = field('Subdomain');
    // The field lowercases as the user types: the API refuses anything outside the pattern.
    await slug.fill('Admin');
    expect(await slug.inputValue()).toBe('admin');
    const availability = page.getByTestId('slug-availability');
    await availability.filter({ hasText: 'This word is reserved' }).waitFor();
    expect(await availability.getAttribute('data-reason')).toBe('reserved_word');

    await slug.fill('acme');
    await availability.filter({ hasText: 'This subdomain is taken' }).waitFor();

    await slug.fill(SLUG);
    await availability.filter({ hasText: `“${SLUG}” is valid and available.` }).waitFor();
    expect(await availability.getAttribute('data-valid')).toBe('true');
    expect(await availability.getAttribute('data-available')).toBe('true');
  });

  it('shows the field errors of step 1 and creates the org', async () => {
    await field('Legal name').fill(LEGAL_NAME);
    // A personal mail domain is refused by the server, beside its field.
    await field('Primary domain').fill('gmail.com');
    await page.getByRole('button', { name: 'Add domain', exact: true }).click();
    await field('Secondary domain 1').fill(`mail.${SLUG}.example.com`);
    await field('Admin email').fill(`admin@${SLUG}.example.com`);
    await field('Website').fill(`https://${SLUG}.example.com`);
    await selectOption('Industry', 'Professional services');
    await selectOption('Country / timezone', 'Europe/Paris', 'Europe/Par');

    // The logo waits in the form (previewed) until the org exists.
    await chooseLogo(png(40, 20));
    await expectRenderedLogo('logo-preview');

    await page.getByRole('button', { name: 'Create and continue', exact: true }).click();
    await page.getByText('Personal consumer-mail domains are not allowed').waitFor();
    expect(new URL(page.url()).pathname).toBe('/ops/clients/new');

    await field('Primary domain').fill(`${SLUG}.example.com`);
    await page.getByRole('button', { name: 'Create and continue', exact: true }).click();
    await waitForPath(/^\/ops\/clients\/[0-9a-f-]{36}\/setup\/step-3$/);
    orgId = new URL(page.url()).pathname.split('/')[3]!;
    await heading('Expert assignment');
    await expectProgress('Expert assignment');
    // Uploaded right after the create: the wizard's org header shows it.
    await expectRenderedLogo('org-logo', page.getByTestId('wizard-org'));
  });

  it('lists the new org as pending and reopens step 1 from its row', async () => {
    await page.goto('/ops/clients');
    await page.getByRole('searchbox', { name: 'Search', exact: true }).fill(SLUG);
    const row = page.getByTestId('client-row').filter({ hasText: SLUG });
    await row.waitFor();
    await page.getByTestId('client-row').filter({ hasText: 'Acme Corporation' }).waitFor({ state: 'detached' });
    expect(await row.getByTestId('org-status').getAttribute('data-status')).toBe('pending_am_setup');
    expect(await row.textContent()).toContain('you');

    await row.getByRole('link', { name: LEGAL_NAME, exact: true }).click();
    await waitForPath(`/ops/clients/${orgId}/setup/step-1`);
    await heading('Company info');
    expect(await field('Legal name').inputValue()).toBe(LEGAL_NAME);
    expect(await field('Secondary domain 1').inputValue()).toBe(`mail.${SLUG}.example.com`);
    // Its own slug is not reported as taken.
    await page.getByTestId('slug-availability').filter({ hasText: 'is valid and available' }).waitFor();

    await page.getByRole('button', { name: 'Save and continue', exact: true }).click();
    await waitForPath(`/ops/clients/${orgId}/setup/step-3`);
  });

  it('replaces and removes the logo on step 1 at phone, laptop and desktop sizes, then uploads a small PNG again', async () => {
    for (const size of [
      { width: 390, height: 844 },
      { width: 1280, height: 800 },
      { width: 1440, height: 900 },
    ]) {
      await page.setViewportSize(size);
      await page.goto(`/ops/clients/${orgId}/setup/step-1`);
      await heading('Company info');
      const logoField = page.getByTestId('logo-field');
      await expectRenderedLogo('org-logo', logoField);
      const before = await logoField.getByTestId('org-logo').getAttribute('src');

      await chooseLogo(png(24, 24, [20, 160, 90]));
      await expect.poll(() => logoField.getByTestId('org-logo').getAttribute('src'), { timeout: TIMEOUT }).not.toBe(before);
      await expectRenderedLogo('org-logo', logoField);
      await expectRenderedLogo('org-logo', page.getByTestId('wizard-org'));

      // Not an image: refused in the browser, nothing sent; the logo stays.
      await chooseLogo(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'logo.svg', 'image/svg+xml');
      await page.getByText('The logo must be a PNG, JPEG or WebP image').waitFor();
      await expectRenderedLogo('org-logo', logoField);

      await page.getByRole('button', { name: 'Remove logo', exact: true }).click();
      await logoField.getByText('No logo', { exact: true }).waitFor();
      await page.getByTestId('wizard-org').getByTestId('org-logo').waitFor({ state: 'detached' });

      await chooseLogo(png(32, 32));
      await expectRenderedLogo('org-logo', logoField);
    }
    const record = (await amApi(`/am/orgs/${orgId}`)) as unknown as { logoUrl: string | null };
    expect(record.logoUrl).toMatch(new RegExp(`^/api/orgs/${orgId}/logo\\?v=`));
    await page.getByRole('button', { name: 'Save and continue', exact: true }).click();
    await waitForPath(`/ops/clients/${orgId}/setup/step-3`);
  });

  it('grants an Expert org-wide coverage on step 3 and continues', async () => {
    await page.getByTestId('coverage-note').waitFor();
    await selectOption('Expert', 'Demo Expert (expert@platform.demo.invalid)');
    await page.getByRole('button', { name: 'Add grant', exact: true }).click();
    const grant = page.getByTestId('grant-row').filter({ hasText: 'expert@platform.demo.invalid' });
    await grant.waitFor();
    expect(await grant.textContent()).toContain('Whole org');

    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await waitForPath(`/ops/clients/${orgId}/setup/step-4`);
    await heading('Client invite');
    await expectProgress('Client invite');
  });

  it('finishes without invite on step 4: the org is active', async () => {
    const gate = page.getByTestId('phase0-status');
    await gate.waitFor();
    expect(await gate.getAttribute('data-ready')).toBe('true');
    expect(await page.getByTestId('phase0-expert-mapped').getAttribute('data-value')).toBe('true');
    expect(await page.getByTestId('phase0-specialist-assigned').getAttribute('data-value')).toBe('false');
    // The invite is offered (test/browser/onboarding.browser.spec.ts sends it); its link can be copied before sending.
    const send = page.getByTestId('send-invite');
    expect((await send.textContent())?.trim()).toBe('Send invite');
    expect(await send.isDisabled()).toBe(false);
    const expiry = page.getByTestId('onboarding-link-expiry');
    await expiry.waitFor();
    expect(await expiry.getAttribute('data-sent')).toBe('false');
    expect(await page.getByTestId('onboarding-link').inputValue()).toMatch(/\/onboarding\/start\?token=[\w-]{43,}$/);

    await page.getByRole('button', { name: 'Finish without invite', exact: true }).click();
    const finished = page.getByTestId('setup-finished');
    await finished.waitFor();
    expect(await finished.getByTestId('org-status').getAttribute('data-status')).toBe('active');
    expect(await page.getByTestId('send-invite').count()).toBe(0);

    await finished.getByRole('link', { name: 'Open the org overview', exact: true }).click();
    await waitForPath(`/ops/clients/${orgId}`);
    await heading(LEGAL_NAME);
    expect(await page.getByTestId('org-status').first().getAttribute('data-status')).toBe('active');
  });

  it('assigns Émilie Laurent through Reassign: preview, stored alias, primary', async () => {
    await page.getByRole('tab', { name: 'Specialists', exact: true }).click();
    await page.getByText('No Specialist is assigned yet.').waitFor();
    await page.getByRole('link', { name: 'Reassign', exact: true }).click();
    await waitForPath(`/ops/clients/${orgId}/setup/step-2`);
    await heading('Specialist assignment');
    // Step 2 is outside the linear flow: no progress here.
    expect(await page.getByTestId('wizard-progress').count()).toBe(0);

    const emilie = page.getByTestId('specialist-option').filter({ hasText: 'Émilie Laurent' });
    await emilie.getByRole('checkbox', { name: 'Émilie Laurent' }).check();
    expect(await emilie.getByTestId('alias-preview').textContent()).toContain(EMILIE_PREVIEW);
    await page.getByRole('button', { name: 'Save', exact: true }).click();

    // An active org goes back to its Specialists tab.
    await page.waitForURL((url) => url.pathname === `/ops/clients/${orgId}` && url.searchParams.get('tab') === 'specialists');
    const row = page.getByTestId('specialist-row').filter({ hasText: 'Émilie Laurent' });
    await row.waitFor();
    expect(await row.getAttribute('data-primary')).toBe('true');
    await row.getByTestId('primary-badge').waitFor();
    expect(await row.getByTestId('osa-alias').textContent()).toBe(EMILIE_ALIAS);

    // Back on step 2, the stored alias shows under the assigned Specialist.
    await page.getByRole('link', { name: 'Reassign', exact: true }).click();
    const assigned = page.getByTestId('specialist-option').filter({ hasText: 'Émilie Laurent' });
    expect(await assigned.getByTestId('stored-alias').textContent()).toContain(EMILIE_ALIAS);
    await page.getByRole('link', { name: 'Cancel', exact: true }).click();
    await page.waitForURL((url) => url.pathname === `/ops/clients/${orgId}` && url.searchParams.get('tab') === 'specialists');
  });

  it('opens the OSA detail and drives its mailbox: provision, suspend, restore', async () => {
    await page.getByRole('link', { name: 'Émilie Laurent', exact: true }).click();
    await waitForPath(/^\/ops\/clients\/[0-9a-f-]{36}\/specialists\/[0-9a-f-]{36}$/);
    const workspace = page.getByTestId('workspace-section');
    await workspace.waitFor();
    expect(await workspace.getByTestId('osa-alias').textContent()).toBe(EMILIE_ALIAS);
    const badge = workspace.getByTestId('mailbox-status');
    const button = (name: string) => workspace.getByRole('button', { name, exact: true });
    expect(await badge.getAttribute('data-state')).toBe('none');
    expect(await button('Suspend').isDisabled()).toBe(true);
    expect(await button('Restore').isDisabled()).toBe(true);

    await button('Provision now').click();
    // The page polls the detail while the job runs.
    await workspace.locator('[data-testid="mailbox-status"][data-state="provisioned"]').waitFor({ timeout: 30_000 });
    expect(await button('Provision now').isDisabled()).toBe(true);

    // Suspend and Restore are confirmed first (test/browser/ops-pages.browser.spec.ts walks the dialogs).
    await button('Suspend').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Suspend mailbox', exact: true }).click();
    await workspace.locator('[data-testid="mailbox-status"][data-state="suspended"]').waitFor();
    expect(await button('Suspend').isDisabled()).toBe(true);

    await button('Restore').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Restore mailbox', exact: true }).click();
    await workspace.locator('[data-testid="mailbox-status"][data-state="provisioned"]').waitFor();
    expect(await button('Restore').isDisabled()).toBe(true);
  });

  it('lists the org as active', async () => {
    await page.goto('/ops/clients');
    await selectOption('Status', 'Active');
    await page.getByRole('searchbox', { name: 'Search', exact: true }).fill(SLUG);
    const row = page.getByTestId('client-row').filter({ hasText: SLUG });
    await row.waitFor();
    expect(await row.getByTestId('org-status').getAttribute('data-status')).toBe('active');
    await row.getByRole('link', { name: LEGAL_NAME, exact: true }).click();
    await waitForPath(`/ops/clients/${orgId}`);
  });

  it('opens step-2 with the Specialist of ?specialist=<slug> preselected, for a rate override, once it creates the org', async () => {
    const slug = `${SLUG}-pre`;
    await page.goto('/ops/clients/new?specialist=maya-chen');
    await page.getByTestId('preassign-notice').filter({ hasText: 'Maya Chen will be preselected on the Specialist step' }).waitFor();
    await field('Legal name').fill(`Preassigned ${slug}`);
    await field('Subdomain').fill(slug);
    await field('Primary domain').fill(`${slug}.example.com`);
    await field('Admin email').fill(`admin@${slug}.example.com`);
    await field('Website').fill(`https://${slug}.example.com`);
    await selectOption('Industry', 'Retail & e-commerce');
    await page.getByRole('button', { name: 'Create and continue', exact: true }).click();
    await waitForPath(/^\/ops\/clients\/[0-9a-f-]{36}\/setup\/step-2$/);
    expect(new URL(page.url()).searchParams.get('specialist')).toBe('maya-chen');
    const newOrgId = new URL(page.url()).pathname.split('/')[3]!;
    // Nothing is assigned yet: Maya Chen is preselected, with the configured domain in her preview.
    const maya = page.getByTestId('specialist-option').filter({ hasText: 'Maya Chen' });
    expect(await maya.getByRole('checkbox', { name: 'Maya Chen' }).isChecked()).toBe(true);
    expect(await maya.getByTestId('alias-preview').textContent()).toContain(`maya.${slug}@${WORKSPACE_DOMAIN}`);
    expect(await maya.getByTestId('stored-alias').count()).toBe(0);
    expect((await amApi(`/am/orgs/${newOrgId}/specialist-assignments`)).items).toEqual([]);

    await maya.getByRole('textbox', { name: 'Monthly rate override' }).fill('990');
    await maya.getByRole('textbox', { name: 'Override reason' }).fill('launch pilot');
    await page.getByRole('button', { name: 'Save and continue', exact: true }).click();
    await waitForPath(`/ops/clients/${newOrgId}/setup/step-3`);
    // The coverage summary lists the assigned Specialist (not covered yet).
    await page.getByTestId('coverage-table').filter({ hasText: 'Maya Chen' }).waitFor();
    const [assigned] = (await amApi(`/am/orgs/${newOrgId}/specialist-assignments`)).items as Array<{ monthlyRate: number | null; overrideReason: string | null; email_alias: string }>;
    expect(assigned).toMatchObject({ monthlyRate: 990, overrideReason: 'launch pilot', email_alias: `maya.${slug}@${WORKSPACE_DOMAIN}` });
  });
});
