import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { png } from '../support/images.js';
import { seenMailIds, waitForMail, waitForMailedCode } from '../support/mail.js';
import { SCREEN_SIZES } from './support/screens.js';
import { browserSessions } from './support/sessions.js';

/**
 * The client onboarding of spec 1 item 1 in the browser: the AM sends the invite from wizard step
 * 4, the mail reaches the development outbox, the invited admin signs in with the onboarding code,
 * confirms the company (Workspace Setup), sets a password and name and picks a Specialist (Your
 * Team), and lands on /client/chat with the trial banner and the Specialist's welcome (Done).
 */

const DEMO_PASSWORD = 'demo1234';
const AM_EMAIL = 'account_manager@platform.demo.invalid';
const TIMEOUT = 15_000;
const RUN = Date.now().toString(36);
const SLUG = `onb-${RUN}`;
const FINAL_SLUG = `onb-final-${RUN}`;
const LEGAL_NAME = `Onboarding Test ${RUN}`;
const FINAL_NAME = `Onboarding Test ${RUN} GmbH`;
const ADMIN_EMAIL = `owner@${SLUG}.example.com`;
const ADMIN_NAME = 'Olga Owner';
const ADMIN_PASSWORD = 'a strong password';

const sessions = browserSessions({
  timeout: TIMEOUT,
  setUpContext: (context, baseUrl) => context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl }),
});
const newPage = () => sessions.newPage();

async function waitForPath(page: Page, path: string): Promise<void> {
  await page.waitForURL((url) => url.pathname === path, { timeout: TIMEOUT });
}

function field(page: Page, name: string) {
  return page.getByRole('textbox', { name, exact: true });
}

async function api<T>(path: string, options: { method?: string; body?: unknown; token?: string } = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(`${sessions.baseUrl}/api${path}`, {
    method: options.method ?? 'GET',
    headers: {
      ...(options.body !== undefined && { 'Content-Type': 'application/json' }),
      ...(options.token && { Authorization: `Bearer ${options.token}` }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: response.status, body: (await response.json().catch(() => undefined)) as T };
}

/** The live subdomain check's message once it has settled on `slug`. */
async function expectAvailability(page: Page, slug: string, message: string): Promise<void> {
  const shown = page.getByTestId('slug-availability');
  await expect.poll(async () => ((await shown.count()) === 1 ? await shown.textContent() : null), { timeout: TIMEOUT }).toBe(message);
  expect(message).toContain(`“${slug}”`);
}

/** Words a client reads never name the server's field (spec 2.1 says subdomain to clients). */
async function expectNoEngineeringWords(page: Page): Promise<void> {
  const text = await page.locator('body').innerText();
  expect(text).not.toMatch(/slug/i);
}

/** Signs the AM in through the login page; returns the session token the web app stored. */
async function signInAm(page: Page): Promise<string> {
  await page.goto('/login');
  await field(page, 'Email').fill(AM_EMAIL);
  await field(page, 'Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await waitForPath(page, '/ops/clients');
  // A string expression: the browser's globals are not in this (node) project's types.
  return (await page.evaluate<string | null>("localStorage.getItem('cos.token')"))!;
}

/** Step 1 through the API, to keep the walk short (the wizard's own test drives its form). */
async function createOrg(amToken: string, slug: string, legalName: string): Promise<string> {
  const created = await api<{ id: string }>('/am/orgs', {
    method: 'POST',
    token: amToken,
    body: {
      legalName,
      slug,
      industry: 'finance',
      corporateDomains: [`${slug}.example.com`],
      adminEmail: `owner@${slug}.example.com`,
      website: `https://${slug}.example.com`,
      timezone: 'Europe/Berlin',
    },
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

/** The path and query of an onboarding link: the client opens it on this server. */
const pathOf = (link: string): string => {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
};

/** Opens the link, asks for the onboarding code, reads it from the outbox and verifies it. */
async function signInWithOnboardingCode(page: Page, link: string, adminEmail: string): Promise<void> {
  await page.goto(pathOf(link));
  await page.getByRole('heading', { level: 1, name: 'Set up your workspace', exact: true }).waitFor();
  expect(await page.getByTestId('onboarding-admin-email').textContent()).toBe(adminEmail);
  const seen = await seenMailIds(sessions.baseUrl, adminEmail);
  await page.getByRole('button', { name: 'Email me a code', exact: true }).click();
  await field(page, 'Onboarding code').waitFor();
  await field(page, 'Onboarding code').fill(await waitForMailedCode(sessions.baseUrl, adminEmail, seen));
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await field(page, 'Company legal name').waitFor();
}

async function fillProfile(page: Page): Promise<void> {
  await field(page, 'Your name').fill(ADMIN_NAME);
  await field(page, 'Password').fill(ADMIN_PASSWORD);
  await field(page, 'Confirm password').fill(ADMIN_PASSWORD);
}

/** The logo image inside `scope`, decoded by the browser (not merely an <img> element). */
async function expectRenderedLogo(page: Page, scope: string): Promise<void> {
  const image = page.getByTestId(scope).getByTestId('org-logo');
  await image.waitFor();
  await expect.poll(() => image.evaluate((img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth), { timeout: TIMEOUT }).toBeGreaterThan(0);
}

async function expectActiveStep(page: Page, step: string): Promise<void> {
  await page.locator(`[data-testid="onboarding-steps"][data-active-step="${step}"]`).waitFor();
}

describe('the client onboarding, from the AM invite to the client chat', () => {
  let am: Page;
  let client: Page;
  let amToken = '';
  let orgId = '';
  let link = '';

  it('the AM copies the onboarding link on step 4, sends the invite, and can resend it', async () => {
    am = await newPage();
    amToken = await signInAm(am);
    orgId = await createOrg(amToken, SLUG, LEGAL_NAME);

    await am.goto(`/ops/clients/${orgId}/setup/step-4`);
    await am.getByRole('heading', { level: 1, name: 'Client invite', exact: true }).waitFor();
    expect(await am.getByTestId('invite-recipient').textContent()).toBe(ADMIN_EMAIL);
    const expiry = am.getByTestId('onboarding-link-expiry');
    await expiry.waitFor();
    expect(await expiry.getAttribute('data-sent')).toBe('false');
    link = await am.getByTestId('onboarding-link').inputValue();
    expect(link).toMatch(/\/onboarding\/start\?token=[\w-]{43,}$/);

    // Copied before sending.
    await am.getByTestId('copy-onboarding-link').click();
    await am.getByTestId('copy-onboarding-link').filter({ hasText: 'Copied' }).waitFor();
    expect(await am.evaluate<string>('navigator.clipboard.readText()')).toBe(link);

    await am.getByRole('button', { name: 'Send invite', exact: true }).click();
    const sent = am.getByTestId('invite-sent');
    await sent.waitFor();
    expect(await sent.textContent()).toContain(`Sent to ${ADMIN_EMAIL}`);
    await am.locator('[data-testid="onboarding-link-expiry"][data-sent="true"]').waitFor();
    expect(await expiry.textContent()).toMatch(/^Expires /);
    expect(await am.getByTestId('onboarding-link').inputValue()).toBe(link);
    expect(await am.getByTestId('wizard-org').getByTestId('org-status').getAttribute('data-status')).toBe('pending_client_confirmation');
    // Finishing without invite is no longer offered once the client is invited.
    expect(await am.getByRole('button', { name: 'Finish without invite', exact: true }).count()).toBe(0);

    // While the client has not confirmed: Resend, a new window, the same link.
    await am.getByRole('button', { name: 'Resend invite', exact: true }).click();
    await am.getByTestId('invite-sent').filter({ hasText: 'Invite sent again' }).waitFor();
    expect(await am.getByTestId('onboarding-link').inputValue()).toBe(link);

    // Copied after sending too.
    await am.reload();
    await am.locator('[data-testid="onboarding-link-expiry"][data-sent="true"]').waitFor();
    await am.getByTestId('copy-onboarding-link').click();
    await am.getByTestId('copy-onboarding-link').filter({ hasText: 'Copied' }).waitFor();
    expect(await am.evaluate<string>('navigator.clipboard.readText()')).toBe(link);
  });

  it('mails the invite with the link to the admin email (development outbox)', async () => {
    const mail = await waitForMail(sessions.baseUrl, ADMIN_EMAIL, (m) => m.subject.includes('invited'), 'with the invite');
    expect(mail.subject).toBe(`You're invited to set up ${LEGAL_NAME}`);
    expect(mail.text).toContain(link);
  });

  it('the client signs in with the onboarding code and confirms the company; a taken subdomain is refused beside its field', async () => {
    client = await newPage();
    await signInWithOnboardingCode(client, link, ADMIN_EMAIL);
    await expectActiveStep(client, 'Workspace Setup');
    expect(await field(client, 'Company legal name').inputValue()).toBe(LEGAL_NAME);
    expect(await field(client, 'Subdomain').inputValue()).toBe(SLUG);
    expect(await client.getByTestId('company-details').textContent()).toContain(`${SLUG}.example.com`);

    // The logo (spec 2.1): uploaded at once by the invited admin (already the org's owner), shown at phone, desktop and laptop sizes.
    await client.setViewportSize({ width: 390, height: 844 });
    await client.getByTestId('logo-field').getByText('No logo', { exact: true }).waitFor();
    await client.locator('input[type="file"]').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png(48, 24) });
    await expectRenderedLogo(client, 'logo-field');
    await client.setViewportSize({ width: 1440, height: 900 });
    await expectRenderedLogo(client, 'logo-field');
    await client.setViewportSize({ width: 1280, height: 800 });
    await expectRenderedLogo(client, 'logo-field');
    const uploaded = await api<{ logoUrl: string | null }>(`/am/orgs/${orgId}`, { token: amToken });
    expect(uploaded.body.logoUrl).toMatch(new RegExp(`^/api/orgs/${orgId}/logo\\?v=`));

    // Checked live as typed, with the wizard's messages (spec 2.1): the invite's own subdomain is available.
    await expectAvailability(client, SLUG, `“${SLUG}” is valid and available.`);
    await field(client, 'Subdomain').fill('acme');
    await expectAvailability(client, 'acme', '“acme” is not available: This subdomain is taken.');
    await field(client, 'Subdomain').fill('www');
    await expectAvailability(client, 'www', '“www” is not available: This word is reserved.');
    await expectNoEngineeringWords(client);

    // Checked in the browser first.
    await field(client, 'Subdomain').fill('Not A Slug');
    await client.getByRole('button', { name: 'Continue', exact: true }).click();
    await client.getByText('Use 3 to 63 lowercase letters, digits or inner hyphens', { exact: true }).waitFor();
    await expectActiveStep(client, 'Workspace Setup');

    // Taken: only the server knows; its 409 brings the client back beside the field.
    await field(client, 'Company legal name').fill(FINAL_NAME);
    await field(client, 'Subdomain').fill('acme');
    await client.getByRole('button', { name: 'Continue', exact: true }).click();
    await expectActiveStep(client, 'Your Team');
    await fillProfile(client);
    await client.getByTestId('specialist-choice').filter({ hasText: 'Priya Nair' }).click();
    await client.getByRole('button', { name: 'Finish setup', exact: true }).click();
    await expectActiveStep(client, 'Workspace Setup');
    // The server's refusal in the client's words (never "slug").
    await client.getByText('This subdomain is taken', { exact: true }).waitFor();
    expect(await field(client, 'Subdomain').getAttribute('aria-invalid')).toBe('true');
    await expectNoEngineeringWords(client);
  });

  it('the client sets the profile, picks a Specialist and lands on /client/chat with the trial banner', async () => {
    await field(client, 'Subdomain').fill(FINAL_SLUG);
    await expectAvailability(client, FINAL_SLUG, `“${FINAL_SLUG}” is valid and available.`);
    await client.getByRole('button', { name: 'Continue', exact: true }).click();
    await expectActiveStep(client, 'Your Team');
    // What was typed on Your Team is kept.
    expect(await field(client, 'Your name').inputValue()).toBe(ADMIN_NAME);
    const priya = client.getByTestId('specialist-choice').filter({ hasText: 'Priya Nair' });
    expect(await priya.getAttribute('aria-checked')).toBe('true');
    expect(await priya.getByTestId('specialist-rate').textContent()).toMatch(/\/ month$/);

    await client.getByRole('button', { name: 'Finish setup', exact: true }).click();
    await waitForPath(client, '/client/chat');
    await client.getByRole('heading', { level: 1, name: 'Chat', exact: true }).waitFor();
    const banner = client.getByTestId('trial-banner');
    await banner.waitFor();
    expect(await banner.getAttribute('data-ending')).toBe('false');
    expect(Number(await banner.getAttribute('data-days-left'))).toBeGreaterThanOrEqual(29);
    expect(await banner.textContent()).toMatch(/free trial until .+ \((29|30|31) days left\)/);
    // No conversation yet: the chosen Specialist welcomes the new client (Phase 2 Done).
    const welcome = client.getByTestId('welcome');
    await welcome.waitFor();
    expect(await welcome.getByTestId('message-author').textContent()).toBe('Priya Nair');
    // The header carries the org's logo and name.
    await expectRenderedLogo(client, 'client-org');
    expect(await client.getByTestId('client-org').textContent()).toContain(FINAL_NAME);
    const currentUser = await client.getByTestId('current-user').textContent();
    expect(currentUser).toContain(ADMIN_NAME);
    expect(currentUser).toContain(ADMIN_EMAIL);

    // The password set here signs in; the org is active under its confirmed name and subdomain.
    expect((await api('/auth/login', { method: 'POST', body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).status).toBe(200);
    const org = await api<{ status: string; slug: string; legalName: string }>(`/am/orgs/${orgId}`, { token: amToken });
    expect(org.body).toMatchObject({ status: 'active', slug: FINAL_SLUG, legalName: FINAL_NAME });
    const assigned = await api<{ items: Array<{ specialist: { slug: string } }> }>(`/am/orgs/${orgId}/specialist-assignments`, { token: amToken });
    expect(assigned.body.items.map((a) => a.specialist.slug)).toEqual(['priya-nair']);
  });

  it('tells a client who opens the spent link to sign in normally', async () => {
    await client.goto(pathOf(link));
    const problem = client.getByTestId('invite-problem');
    await problem.waitFor();
    expect(await problem.getAttribute('data-code')).toBe('invite_used');
    expect(await problem.textContent()).toContain('already been used');
    expect(await problem.getByRole('link', { name: 'Go to sign in', exact: true }).getAttribute('href')).toBe('/login');
  });

  it('shows the AM the org as finished on step 4', async () => {
    await am.reload();
    const finished = am.getByTestId('setup-finished');
    await finished.waitFor();
    expect(await finished.getByTestId('org-status').getAttribute('data-status')).toBe('active');
    expect(await am.getByTestId('send-invite').count()).toBe(0);
  });
});

describe('a preassigned Specialist', () => {
  it('is shown with its rate and the pick is skipped (through the preserved /accept-invite entry)', async () => {
    const page = await newPage();
    const amToken = (await api<{ token: string }>('/auth/login', { method: 'POST', body: { email: AM_EMAIL, password: DEMO_PASSWORD } })).body.token;
    const slug = `${SLUG}-pre`;
    const orgId = await createOrg(amToken, slug, `Preassigned ${RUN}`);
    const pool = await api<{ items: Array<{ id: string; slug: string }> }>('/am/specialists?limit=200', { token: amToken });
    const maya = pool.body.items.find((s) => s.slug === 'maya-chen')!;
    const assigned = await api(`/am/orgs/${orgId}/specialist`, { method: 'POST', token: amToken, body: { specialistId: maya.id, monthlyRate: 990, overrideReason: 'pilot' } });
    expect(assigned.status).toBe(201);
    const invite = await api<{ onboardingUrl: string }>(`/am/orgs/${orgId}/invite`, { method: 'POST', token: amToken, body: {} });
    expect(invite.status).toBe(200);
    const token = new URL(invite.body.onboardingUrl).searchParams.get('token')!;

    const adminEmail = `owner@${slug}.example.com`;
    await signInWithOnboardingCode(page, `${sessions.baseUrl}/accept-invite?token=${encodeURIComponent(token)}`, adminEmail);
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await expectActiveStep(page, 'Your Team');
    const preassigned = page.getByTestId('preassigned-specialist');
    await preassigned.waitFor();
    expect(await preassigned.getAttribute('data-specialist-slug')).toBe('maya-chen');
    expect(await preassigned.getByTestId('specialist-rate').textContent()).toBe('$990.00 / month (your agreed rate)');
    expect(await page.getByTestId('specialist-choice').count()).toBe(0);

    await fillProfile(page);
    await page.getByRole('button', { name: 'Finish setup', exact: true }).click();
    await waitForPath(page, '/client/chat');
    await page.getByTestId('trial-banner').waitFor();
  });
});

describe.each(SCREEN_SIZES)('the errors of an onboarding step at $width x $height', (size) => {
  it('are all shown at once on Workspace Setup and on Your Team, each beside its field', async () => {
    const amToken = (await api<{ token: string }>('/auth/login', { method: 'POST', body: { email: AM_EMAIL, password: DEMO_PASSWORD } })).body.token;
    const slug = `${SLUG}-errors-${size.name}`;
    const orgId = await createOrg(amToken, slug, `Errors ${size.name} ${RUN}`);
    const invite = await api<{ onboardingUrl: string }>(`/am/orgs/${orgId}/invite`, { method: 'POST', token: amToken, body: {} });
    expect(invite.status).toBe(200);
    const page = await sessions.newPage(size);
    await signInWithOnboardingCode(page, invite.body.onboardingUrl, `owner@${slug}.example.com`);

    // Workspace Setup: no legal name and a subdomain out of the pattern, both flagged in one go.
    const workspace = page.getByRole('form', { name: 'Confirm your company' });
    await field(page, 'Company legal name').fill('');
    await field(page, 'Subdomain').fill('Not A Slug');
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await workspace.getByText('Required', { exact: true }).waitFor();
    await workspace.getByText('Use 3 to 63 lowercase letters, digits or inner hyphens', { exact: true }).waitFor();
    for (const name of ['Company legal name', 'Subdomain']) expect(await field(page, name).getAttribute('aria-invalid'), name).toBe('true');
    await expectActiveStep(page, 'Workspace Setup');

    // Your Team: no name, a short password, a confirmation that differs, no Specialist picked: four errors at once.
    await field(page, 'Company legal name').fill(`Errors ${size.name} ${RUN}`);
    await field(page, 'Subdomain').fill(slug);
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await expectActiveStep(page, 'Your Team');
    const team = page.getByRole('form', { name: 'Your profile and Specialist' });
    await team.getByTestId('specialist-choice').first().waitFor();
    await field(page, 'Password').fill('short');
    await field(page, 'Confirm password').fill('shorter');
    await page.getByRole('button', { name: 'Finish setup', exact: true }).click();
    for (const message of ['Required', 'Must be at least 8 characters', 'The passwords do not match', 'Pick a Specialist']) {
      await team.getByText(message, { exact: true }).waitFor();
    }
    for (const name of ['Your name', 'Password', 'Confirm password']) expect(await field(page, name).getAttribute('aria-invalid'), name).toBe('true');
    await expectActiveStep(page, 'Your Team');
    expect(new URL(page.url()).pathname).toBe('/onboarding/start');
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow, 'the onboarding page scrolls sideways').toBeLessThanOrEqual(0);
  });
});

describe('an onboarding link that cannot be used', () => {
  it('says that an unknown link is not valid, at /onboarding/start and at /accept-invite', async () => {
    const page = await newPage();
    const unknown = 'x'.repeat(43);
    for (const path of [`/onboarding/start?token=${unknown}`, `/accept-invite?token=${unknown}`, '/onboarding/start']) {
      await page.goto(path);
      const problem = page.getByTestId('invite-problem');
      await problem.waitFor();
      expect(await problem.getAttribute('data-code'), path).toBe('not_found');
      expect(await problem.textContent()).toContain('This onboarding link is not valid');
      expect(await page.getByRole('button', { name: 'Email me a code', exact: true }).count()).toBe(0);
    }
  });
});
