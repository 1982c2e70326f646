import { createHmac } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSessions } from './support/sessions.js';

/**
 * Channel settings and the ops quarantine in the browser (spec 4.1, 4.6, 4.8): the org owner
 * connects messaging-b at /client/settings/channels, sees the names of the stored secrets but never
 * their values, sees the binding wait for proof with its code (on a phone too), proves it by
 * sending the code through the channel, copies a webhook URL and watches the health pick up an
 * inbound update; a member may not manage; the AM verifies a pending binding from the org's
 * Channels tab and finds an event of an unbound chat-a workspace at /ops/channels/quarantine.
 */

const DEMO_PASSWORD = 'demo1234';
const OWNER_EMAIL = 'org_admin@acme.demo.invalid';
const MEMBER_EMAIL = 'client@acme.demo.invalid';
const AM_EMAIL = 'account_manager@platform.demo.invalid';
const CHAT_A_SECRET = 'browser-test-chat-a-signing-secret';
const WEBHOOK_SECRET = 'mb-webhook-secret-value-1234-abcdef';
const BOT_TOKEN = '123456:bot-token-value-abcd';
const NEW_BOT_TOKEN = '123456:bot-token-value-efgh';
const UNBOUND_WORKSPACE = 'T-NOBODY-BROWSER';
const TIMEOUT = 15_000;
/** Longer than the page's health refresh interval (10 s), so that a refresh happens meanwhile. */
const HEALTH_TIMEOUT = 25_000;

const sessions = browserSessions({
  timeout: TIMEOUT,
  env: { CHAT_A_SIGNING_SECRET: CHAT_A_SECRET },
  setUpContext: (context, baseUrl) => context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl }),
});
const newPage = () => sessions.newPage();

async function waitForPath(page: Page, path: string): Promise<void> {
  await page.waitForURL((url) => url.pathname === path, { timeout: TIMEOUT });
}

async function signIn(page: Page, email: string, landing: string): Promise<void> {
  await page.goto('/login');
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await waitForPath(page, landing);
}

async function api<T>(path: string, options: { method?: string; token?: string; body?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(`${sessions.baseUrl}/api${path}`, {
    method: options.method ?? 'GET',
    headers: { ...options.headers, ...(options.token && { Authorization: `Bearer ${options.token}` }) },
    body: options.body,
  });
  return { status: response.status, body: (await response.json().catch(() => undefined)) as T };
}

async function apiLogin(email: string): Promise<{ token: string; orgId: string | undefined }> {
  const login = await api<{ token: string; user: { orgMemberships: Array<{ orgId: string }> } }>('/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: DEMO_PASSWORD }),
  });
  expect(login.status).toBe(200);
  return { token: login.body.token, orgId: login.body.user.orgMemberships[0]?.orgId };
}

/** A password input by its label (a required field's label ends with an asterisk). */
function secretInput(scope: Locator, label: string): Locator {
  return scope.getByLabel(new RegExp(`^${label}`));
}

function channelCard(page: Page, channel: string): Locator {
  return page.locator(`[data-testid="channel-card"][data-channel="${channel}"]`);
}

async function textOf(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').trim();
}

describe('channel settings', () => {
  it('lets the owner connect messaging-b, shows the secret names only, copies a webhook URL and shows the health', async () => {
    const page = await newPage();
    await signIn(page, OWNER_EMAIL, '/client/chat');
    await page.goto('/client/settings');
    await waitForPath(page, '/client/settings/channels');
    await page.getByRole('heading', { level: 1, name: 'Settings', exact: true }).waitFor();
    expect(await page.getByRole('tab', { name: 'Channels', exact: true }).getAttribute('aria-selected')).toBe('true');

    // Email needs no integration: the Specialist's workspace address is listed with its health.
    const email = channelCard(page, 'email');
    await email.getByTestId('workspace-address').first().waitFor();
    expect(await textOf(email.getByTestId('workspace-address').first())).toMatch(/@/);
    expect(await textOf(email.getByTestId('health-connected'))).toBe('Connected');

    const card = channelCard(page, 'messaging-b');
    expect(await textOf(card.getByTestId('channel-state'))).toBe('Not connected');
    await card.getByRole('button', { name: 'Connect', exact: true }).click();
    const form = card.getByTestId('integration-form');
    // Both secrets are needed to connect.
    await form.getByRole('button', { name: 'Connect', exact: true }).click();
    expect(await form.getByText('Required', { exact: true }).count()).toBe(2);
    await form.getByRole('textbox', { name: 'Bot username', exact: true }).fill('acme_bot');
    await secretInput(form, 'Secret token').fill(WEBHOOK_SECRET);
    await secretInput(form, 'Bot token').fill(BOT_TOKEN);
    await form.getByRole('button', { name: 'Connect', exact: true }).click();

    // A new binding waits for proof of control: its code and how to send it, and no Verify button for the owner.
    await card.getByTestId('channel-state').filter({ hasText: 'Awaiting verification' }).waitFor();
    await form.waitFor({ state: 'detached' });
    const verification = card.getByTestId('binding-verification');
    const code = await textOf(verification.getByTestId('verification-code'));
    expect(code).toMatch(/^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$/);
    expect(await textOf(verification)).toContain('Send the code to the bot in a private chat.');
    expect(await textOf(verification)).toContain('ask your account manager');
    expect(await verification.getByTestId('verify-binding').count()).toBe(0);
    expect(await textOf(card.getByTestId('integration-verification'))).toMatch(/^Pending/);
    // The stored secrets by their labels, never their keys.
    expect(await card.getByTestId('secret-name').allTextContents()).toEqual(['Bot token', 'Secret token']);
    expect(await textOf(card.getByTestId('integration-config-botUsername'))).toBe('acme_bot');
    const html = await page.content();
    expect(html).not.toContain(WEBHOOK_SECRET);
    expect(html).not.toContain(BOT_TOKEN);

    // The webhook URL to paste on the vendor side, copied to the clipboard.
    const url = await card.getByTestId('webhook-url').inputValue();
    expect(new URL(url).pathname).toBe('/api/channels/messaging-b/webhook');
    await card.getByTestId('copy-webhook-url').click();
    await card.getByTestId('copy-webhook-url').filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(url);

    // Health: connected, nothing received yet; an update signed with the webhook secret shows up on the next refresh.
    expect(await textOf(card.getByTestId('health-connected'))).toBe('Connected');
    expect(await textOf(card.getByTestId('health-last-inbound'))).toBe('—');
    // One delivery status in plain words; no engineering terms anywhere on the client's page.
    expect(await textOf(card.getByTestId('health-delivery'))).toBe('Delivering');
    expect(await card.getByTestId('health-breaker').count()).toBe(0);
    expect(await page.locator('main').innerText()).not.toMatch(/breaker|quarantin|webhook secret|webhookSecret|botToken/i);

    // On a phone the code is readable without scrolling sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    // The shell folds its navbar with a short padding transition, so the settled layout is what counts.
    expect(await verification.getByTestId('verification-code').isVisible()).toBe(true);
    const rightEdge = async () => {
      const box = await verification.getByTestId('verification-code').boundingBox();
      return box ? box.x + box.width : Number.POSITIVE_INFINITY;
    };
    await expect.poll(rightEdge, { timeout: 5_000 }).toBeLessThanOrEqual(390);
    await expect.poll(() => page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth'), { timeout: 5_000 }).toBe(true);
    // And on a desktop.
    await page.setViewportSize({ width: 1440, height: 900 });
    await expect.poll(rightEdge, { timeout: 5_000 }).toBeLessThanOrEqual(1440);
    await expect.poll(() => page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth'), { timeout: 5_000 }).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });

    // The owner sends the code to the bot: the binding is verified, and the page shows it without a reload.
    const proof = await api('/channels/messaging-b/webhook', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Messaging-B-Secret-Token': WEBHOOK_SECRET },
      body: JSON.stringify({ update_id: 5000, message: { message_id: 100, chat: { id: 77, type: 'private' }, from: { id: 77, is_bot: false, first_name: 'Ann' }, text: `Code: ${code}` } }),
    });
    expect(proof.status).toBe(200);
    await card.getByTestId('channel-state').filter({ hasText: 'Connected' }).waitFor({ timeout: HEALTH_TIMEOUT });
    await verification.waitFor({ state: 'detached' });
    expect(await textOf(card.getByTestId('integration-verification'))).toMatch(/^Verified/);
    const update = { update_id: 5001, message: { message_id: 1, chat: { id: 77, type: 'private' }, from: { id: 77, is_bot: false, first_name: 'Ann' }, text: 'Hello from the browser test' } };
    const delivered = await api('/channels/messaging-b/webhook', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Messaging-B-Secret-Token': WEBHOOK_SECRET },
      body: JSON.stringify(update),
    });
    expect(delivered.status).toBe(200);
    await card.getByTestId('health-last-inbound').filter({ hasNotText: '—' }).waitFor({ timeout: HEALTH_TIMEOUT });

    // Editing replaces the secret typed in and keeps the other one.
    await card.getByRole('button', { name: 'Edit', exact: true }).click();
    const edit = card.getByTestId('integration-form');
    expect(await secretInput(edit, 'Secret token').inputValue()).toBe('');
    await secretInput(edit, 'Bot token').fill(NEW_BOT_TOKEN);
    await edit.getByRole('button', { name: 'Save', exact: true }).click();
    await edit.waitFor({ state: 'detached' });
    expect(await card.getByTestId('secret-name').allTextContents()).toEqual(['Bot token', 'Secret token']);
    const again = await api('/channels/messaging-b/webhook', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Messaging-B-Secret-Token': WEBHOOK_SECRET },
      body: JSON.stringify({ ...update, update_id: 5002, message: { ...update.message, message_id: 2 } }),
    });
    expect(again.status).toBe(200);
    expect(await page.content()).not.toContain(NEW_BOT_TOKEN);

    // Secrets never leave the server.
    const owner = await apiLogin(OWNER_EMAIL);
    const listed = await api<{ items: Array<Record<string, unknown>> }>(`/orgs/${owner.orgId}/integrations`, { token: owner.token });
    expect(JSON.stringify(listed.body)).not.toContain(WEBHOOK_SECRET);
    expect(JSON.stringify(listed.body)).not.toContain(NEW_BOT_TOKEN);
  });

  it('shows a member a read-only notice and nothing to manage', async () => {
    const page = await newPage();
    await signIn(page, MEMBER_EMAIL, '/client/chat');
    await page.goto('/client/settings/channels');
    await page.getByTestId('channels-read-only').waitFor();
    expect(await page.getByTestId('channel-card').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Connect', exact: true }).count()).toBe(0);

    const member = await apiLogin(MEMBER_EMAIL);
    expect((await api(`/orgs/${member.orgId}/integrations`, { token: member.token })).status).toBe(403);
    expect((await api(`/orgs/${member.orgId}/channels/status`, { token: member.token })).status).toBe(403);
  });
});

describe('binding verification by staff', () => {
  it("lets the AM verify an org's pending binding from the org's Channels tab", async () => {
    const owner = await apiLogin(OWNER_EMAIL);
    const created = await api<{ id: string; verificationStatus: string }>(`/orgs/${owner.orgId}/integrations`, {
      method: 'POST',
      token: owner.token,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ channel: 'enterprise-chat', externalId: 'TEN-BROWSER' }),
    });
    expect(created.status).toBe(201);
    expect(created.body.verificationStatus).toBe('pending');

    const page = await newPage();
    await signIn(page, AM_EMAIL, '/ops/clients');
    await page.goto(`/ops/clients/${owner.orgId}?tab=channels`);
    const card = channelCard(page, 'enterprise-chat');
    await card.getByTestId('channel-state').filter({ hasText: 'Awaiting verification' }).waitFor();
    expect(await textOf(card.getByTestId('pending-sources'))).toContain('TEN-BROWSER');
    await card.getByTestId('verify-binding').click();
    await card.getByTestId('channel-state').filter({ hasText: 'Connected' }).waitFor();
    expect(await card.getByTestId('binding-verification').count()).toBe(0);
    const stored = await api<{ verificationStatus: string; verificationCode: string | null }>(`/orgs/${owner.orgId}/integrations/${created.body.id}`, { token: owner.token });
    expect(stored.body).toMatchObject({ verificationStatus: 'verified', verificationCode: null });
  });
});

describe('quarantined ingress', () => {
  interface QuarantinePage {
    items: Array<{ id: string; channel: string; reason: string; preview: string }>;
  }

  /** A chat-a event signed as the vendor does, from a workspace bound to no org. */
  async function postUnboundChatAEvent(): Promise<void> {
    const raw = JSON.stringify({
      type: 'event_callback',
      team_id: UNBOUND_WORKSPACE,
      event_id: 'Ev-browser-1',
      event: { type: 'app_mention', user: 'U1', channel: 'C1', channel_type: 'channel', text: '<@UBOT> hello', ts: '100.1' },
    });
    const ts = Math.floor(Date.now() / 1000);
    const signature = `v0=${createHmac('sha256', CHAT_A_SECRET).update(`v0:${ts}:${raw}`).digest('hex')}`;
    const posted = await api('/channels/chat-a/events', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Chat-A-Request-Timestamp': String(ts), 'X-Chat-A-Signature': signature },
      body: raw,
    });
    expect(posted.status).toBe(200);
  }

  async function waitForQuarantined(token: string): Promise<string> {
    const deadline = Date.now() + TIMEOUT;
    while (Date.now() < deadline) {
      const list = await api<QuarantinePage>('/ops/channels/quarantine', { token });
      const found = list.body.items.find((e) => e.channel === 'chat-a' && e.preview.includes(UNBOUND_WORKSPACE));
      if (found) return found.id;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error('The chat-a event was not quarantined in time');
  }

  it('lists the event of an unbound workspace for the AM, filtered by org', async () => {
    await postUnboundChatAEvent();
    const am = await apiLogin(AM_EMAIL);
    const eventId = await waitForQuarantined(am.token);

    const page = await newPage();
    await signIn(page, AM_EMAIL, '/ops/clients');
    // The header links to it; /ops/channels opens the quarantine.
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Quarantine', exact: true }).click();
    await waitForPath(page, '/ops/channels/quarantine');
    await page.getByRole('heading', { level: 1, name: 'Quarantined ingress', exact: true }).waitFor();

    const row = page.locator(`[data-testid="quarantine-row"][data-id="${eventId}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-channel')).toBe('chat-a');
    expect(await row.getAttribute('data-reason')).toBe('unresolved_org');
    expect(await textOf(row)).toContain('No organization');
    expect(await textOf(row.getByTestId('quarantine-preview'))).toContain(UNBOUND_WORKSPACE);

    // Filtered to Acme: the unbound event is not Acme's, so the list is empty.
    await page.getByTestId('org-filter').click();
    await page.getByRole('option', { name: /Acme Corporation/ }).click();
    await page.waitForURL((u) => u.searchParams.has('orgId'), { timeout: TIMEOUT });
    await page.getByTestId('quarantine-empty').waitFor();
    expect(await row.count()).toBe(0);

    // The filter lives in the URL: going back lists every org again.
    await page.goto('/ops/channels/quarantine');
    await row.waitFor();
  });
});
