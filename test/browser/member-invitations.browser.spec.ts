import { describe, expect, it } from 'vitest';
import { waitForMail } from '../support/mail.js';
import { SCREEN_SIZES, horizontalOverflow } from './support/screens.js';
import { browserSessions } from './support/sessions.js';

/**
 * The page a member invitation mail links to (/invitations/accept?token=): an existing user of
 * another org, signed in as themselves, sees the org and accepts; their memberships then include it.
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

describe.each(SCREEN_SIZES)('accepting a member invitation at $width x $height', (size) => {
  it('shows the org to the invited user, who accepts it; a signed-out visitor is asked to sign in first', async () => {
    // Org B (Globex, one per size) and its admin, who invites acme's demo client.
    const name = `Globex ${size.name}`;
    const slug = `globex-${size.name}`;
    const am = await api<{ token: string }>('/auth/login', { method: 'POST', body: { email: 'account_manager@platform.demo.invalid', password: 'demo1234' } });
    const org = await api<{ id: string }>('/am/orgs', {
      method: 'POST',
      token: am.body.token,
      body: {
        legalName: name,
        slug,
        industry: 'technology',
        corporateDomains: [`${slug}.example.com`],
        adminEmail: `hank@${slug}.example.com`,
        website: `https://${slug}.example.com`,
        timezone: 'UTC',
      },
    });
    expect(org.status).toBe(201);
    const admin = await api<{ token: string }>('/auth/demo-login', { method: 'POST', body: { role: 'org_admin', orgSlug: slug } });
    const invited = await api('/admin/members/invite', { method: 'POST', token: admin.body.token, body: { email: 'client@acme.demo.invalid', orgRole: 'member' } });
    expect(invited.status).toBe(201);
    const mail = await waitForMail(sessions.baseUrl, 'client@acme.demo.invalid', (m) => m.subject === `You have been invited to ${name}`, `inviting to ${name}`);
    const link = new URL(/https?:\/\/\S+\/invitations\/accept\?token=[\w-]+/.exec(mail.text)![0]);

    const page = await sessions.newPage(size);
    await page.goto(`${link.pathname}${link.search}`);
    await page.getByText('Sign in with the address the invitation was sent to').waitFor();

    await page.goto('/login');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill('client@acme.demo.invalid');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('demo1234');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/client/chat', { timeout: TIMEOUT });

    await page.goto(`${link.pathname}${link.search}`);
    await page.getByText('You have been invited to join').waitFor();
    await expect.poll(() => page.getByText(name, { exact: true }).count()).toBe(1);
    expect(await horizontalOverflow(page), 'the invitation page scrolls sideways').toEqual({ overflow: 0, widest: [] });
    await page.getByRole('button', { name: 'Accept invitation', exact: true }).click();
    await page.getByText(`You are now a member of ${name}.`).waitFor();

    const client = await api<{ token: string }>('/auth/login', { method: 'POST', body: { email: 'client@acme.demo.invalid', password: 'demo1234' } });
    const me = await api<{ orgMemberships: Array<{ orgId: string }> }>('/auth/me', { token: client.body.token });
    expect(me.body.orgMemberships.map((m) => m.orgId)).toContain(org.body.id);

    // The link works once.
    await page.reload();
    await page.getByText('This invitation has already been accepted').waitFor();
  });
});
