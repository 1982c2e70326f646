import { describe, expect, it } from 'vitest';
import { TIMEOUT, VIEWPORTS, api, expectNoHorizontalOverflow, expectNoSeriousA11yViolations, signInAsSuperadmin } from './admin-pages.js';
import { browserSessions } from './support/sessions.js';

/**
 * The SuperAdmin's records on a phone, a laptop and a desktop: the audit log's filters live in the address
 * and show names (never ids), its rows read as sentences with links; your own account cannot be
 * suspended or demoted, and the page says so before any dialog opens.
 */
const sessions = browserSessions({ timeout: TIMEOUT });
const ID_FRAGMENT = /\b[0-9a-f]{8}(-[0-9a-f]{4}){0,4}\b/;

async function superadminToken(): Promise<string> {
  return (await api<{ token: string }>(sessions.baseUrl, '/auth/login', { method: 'POST', body: { email: 'superadmin@platform.demo.invalid', password: 'demo1234' } })).body.token;
}

describe('SuperAdmin records', () => {
  for (const viewport of VIEWPORTS) {
    it(`filters the audit log by names kept in the address at ${viewport.width}x${viewport.height}`, async () => {
      const token = await superadminToken();
      const expert = (await api<{ items: Array<{ id: string }> }>(sessions.baseUrl, '/admin/users?q=expert@platform.demo.invalid', { token })).body.items[0]!;
      expect((await api(sessions.baseUrl, `/admin/users/${expert.id}`, { method: 'PATCH', token, body: { name: `Demo Expert ${viewport.name}` } })).status).toBe(200);

      const page = await sessions.newPage();
      await page.setViewportSize(viewport);
      await signInAsSuperadmin(page);
      await page.goto(`/ops/audit?userId=${expert.id}&action=admin.user.updated`);
      await page.getByRole('heading', { level: 1, name: 'Audit log', exact: true }).waitFor();
      // The filters show the names behind the address's ids.
      const filters = page.getByRole('search', { name: 'Filter the audit log' });
      const user = filters.getByLabel('User', { exact: true });
      await expect.poll(() => user.inputValue(), { timeout: TIMEOUT }).toBe(`Demo Expert ${viewport.name} (expert@platform.demo.invalid)`);
      expect(await filters.getByLabel('Action', { exact: true }).inputValue()).toBe('User edited');
      // The row as a sentence, its names linked, no id and no raw payload.
      const row = page.locator('[data-testid="audit-row"][data-action="admin.user.updated"]').first();
      await row.waitFor();
      const sentence = row.getByTestId('audit-sentence');
      expect(await sentence.textContent()).toBe(`Demo Superadmin edited the account of Demo Expert ${viewport.name}.`);
      expect(await sentence.getByRole('link', { name: `Demo Expert ${viewport.name}`, exact: true }).getAttribute('href')).toBe(`/ops/users/${expert.id}`);
      const text = await row.innerText();
      expect(text).not.toMatch(ID_FRAGMENT);
      expect(text).not.toContain('{');
      expect(await row.getByTestId('audit-details').textContent()).toContain('Name');
      await expectNoHorizontalOverflow(page, 'audit log');
      await expectNoSeriousA11yViolations(page, 'audit log');

      // An org picked by its name, and a date range: both land in the address.
      await page.getByRole('button', { name: 'Clear the filters', exact: true }).click();
      await page.waitForURL((url) => url.search === '', { timeout: TIMEOUT });
      const org = filters.getByLabel('Organization', { exact: true });
      await org.click();
      await org.fill('Acme');
      await page.getByRole('option', { name: 'Acme Corporation', exact: true }).click();
      await page.waitForURL((url) => /^[0-9a-f-]{36}$/.test(url.searchParams.get('orgId') ?? ''), { timeout: TIMEOUT });
      const today = new Date();
      const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
      await page.getByLabel('From', { exact: true }).fill('2020-01-01');
      await page.getByLabel('To', { exact: true }).fill(day);
      await page.waitForURL((url) => url.searchParams.get('from') === '2020-01-01' && url.searchParams.get('to') === day, { timeout: TIMEOUT });
      // A reload keeps every filter and shows the org's name again.
      await page.reload();
      await expect.poll(() => filters.getByLabel('Organization', { exact: true }).inputValue(), { timeout: TIMEOUT }).toBe('Acme Corporation');
      await page.getByTestId('audit-row').first().waitFor();
      for (const entry of await page.getByTestId('audit-sentence').allTextContents()) expect(entry).not.toMatch(ID_FRAGMENT);
    });

    it(`shows a user's activity as sentences with names and links, never ids or raw payloads, at ${viewport.width}x${viewport.height}`, async () => {
      // The account manager creates a client of this size and assigns it a Specialist (through the API).
      const am = (await api<{ token: string }>(sessions.baseUrl, '/auth/login', { method: 'POST', body: { email: 'account_manager@platform.demo.invalid', password: 'demo1234' } })).body.token;
      const slug = `activity-${viewport.name}`;
      const legalName = `Activity ${viewport.name} GmbH`;
      const org = await api<{ id: string }>(sessions.baseUrl, '/am/orgs', {
        method: 'POST',
        token: am,
        body: { legalName, slug, industry: 'finance', corporateDomains: [`${slug}.example.com`], adminEmail: `owner@${slug}.example.com`, website: `https://${slug}.example.com`, timezone: 'UTC' },
      });
      expect(org.status).toBe(201);
      const specialist = (await api<{ items: Array<{ id: string; slug: string; name: string }> }>(sessions.baseUrl, '/am/specialists', { token: am })).body.items.find((s) => s.slug === 'maya-chen')!;
      expect((await api(sessions.baseUrl, `/am/orgs/${org.body.id}/specialist`, { method: 'POST', token: am, body: { specialistId: specialist.id } })).status).toBeLessThan(300);
      const amUser = (await api<{ id: string; name: string }>(sessions.baseUrl, '/auth/me', { token: am })).body;

      const page = await sessions.newPage(viewport);
      await signInAsSuperadmin(page);
      await page.goto(`/ops/users/${amUser.id}`);
      await page.getByRole('heading', { level: 2, name: 'Activity', exact: true }).waitFor();
      const created = page.locator('[data-testid="audit-row"][data-action="org.created"]').filter({ hasText: legalName });
      await created.waitFor();
      const createdSentence = created.getByTestId('audit-sentence');
      expect(await createdSentence.textContent()).toBe(`${amUser.name} created the client ${legalName}.`);
      expect(await createdSentence.getByRole('link', { name: legalName, exact: true }).getAttribute('href')).toBe(`/ops/clients/${org.body.id}`);
      expect(await createdSentence.getByRole('link', { name: amUser.name, exact: true }).getAttribute('href')).toBe(`/ops/users/${amUser.id}`);
      const assigned = page.locator('[data-testid="audit-row"][data-action="osa.assigned"]').filter({ hasText: legalName }).first();
      expect(await assigned.getByTestId('audit-sentence').textContent()).toBe(`${amUser.name} assigned ${specialist.name} to ${legalName}.`);
      expect(await assigned.getByTestId('audit-sentence').getByRole('link', { name: specialist.name, exact: true }).getAttribute('href')).toMatch(
        new RegExp(`^/ops/clients/${org.body.id}/specialists/[0-9a-f-]{36}$`),
      );
      // No row of the section shows an id or a raw payload.
      const rows = page.getByTestId('audit-row');
      expect(await rows.count()).toBeGreaterThan(1);
      for (const text of await rows.allInnerTexts()) {
        expect(text).not.toMatch(ID_FRAGMENT);
        expect(text).not.toMatch(/[{}[\]]/);
      }
      await expectNoHorizontalOverflow(page, 'user activity');
    });

    it(`refuses suspending or demoting yourself before any dialog at ${viewport.width}x${viewport.height}`, async () => {
      const token = await superadminToken();
      const me = (await api<{ id: string }>(sessions.baseUrl, '/auth/me', { token })).body;
      const page = await sessions.newPage();
      await page.setViewportSize(viewport);
      await signInAsSuperadmin(page);
      await page.goto(`/ops/users/${me.id}`);
      const access = page.getByTestId('user-access');
      const suspend = access.getByRole('button', { name: 'Suspend', exact: true });
      await suspend.waitFor();
      expect(await suspend.getAttribute('aria-disabled')).toBe('true');
      expect(await access.getByRole('button', { name: 'Change role', exact: true }).getAttribute('aria-disabled')).toBe('true');
      await suspend.click({ force: true });
      await page.waitForTimeout(300);
      expect(await page.getByRole('dialog').count()).toBe(0);
      // The reason is on the page and in the tooltip.
      expect(await access.getByTestId('self-refusal').textContent()).toContain('cannot suspend or deactivate your own account');
      await suspend.hover();
      await page.getByRole('tooltip').filter({ hasText: 'Cannot suspend or deactivate your own account' }).waitFor();
      await expectNoHorizontalOverflow(page, 'own user page');
      await expectNoSeriousA11yViolations(page, 'own user page');
      // The API refuses it as well.
      expect((await api(sessions.baseUrl, `/admin/users/${me.id}`, { method: 'PATCH', token, body: { status: 'suspended' } })).status).toBe(403);

      // Another user: Suspend opens a confirmation, and nothing changes before it.
      const other = (await api<{ items: Array<{ id: string; email: string }> }>(sessions.baseUrl, '/admin/users?q=expert2@platform.demo.invalid', { token })).body.items[0]!;
      await page.goto(`/ops/users/${other.id}`);
      await page.getByTestId('user-access').getByRole('button', { name: 'Suspend', exact: true }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('is signed out everywhere', { exact: false }).waitFor();
      expect((await api<{ status: string }>(sessions.baseUrl, `/admin/users/${other.id}`, { token })).body.status).toBe('active');
      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });

      for (const path of ['/ops/users', '/ops/impersonation']) {
        await page.goto(path);
        await page.getByRole('heading', { level: 1 }).waitFor();
        await page.waitForLoadState('networkidle');
        await expectNoHorizontalOverflow(page, path);
        await expectNoSeriousA11yViolations(page, path);
      }
    });
  }
});
