import { describe, expect, it } from 'vitest';
import { TIMEOUT, VIEWPORTS, api, expectNoHorizontalOverflow, expectNoSeriousA11yViolations, signInAsSuperadmin } from './admin-pages.js';
import { browserSessions } from './support/sessions.js';

/**
 * The Specialist catalog at /ops/specialists (spec 2.2), as a SuperAdmin on a phone, a laptop and a desktop:
 * every form error at once, a Specialist created without a catalog rate, its rate set and then
 * taken away again, the search kept in the address.
 */
const sessions = browserSessions({ timeout: TIMEOUT });

describe('the Specialist catalog', () => {
  for (const viewport of VIEWPORTS) {
    it(`creates, edits and searches Specialists at ${viewport.width}x${viewport.height}`, async () => {
      const page = await sessions.newPage();
      await page.setViewportSize(viewport);
      await signInAsSuperadmin(page);
      await page.goto('/ops/specialists');
      await page.getByRole('heading', { level: 1, name: 'Specialists', exact: true }).waitFor();
      await page.getByTestId('specialist-card').first().waitFor();
      await expectNoHorizontalOverflow(page, 'catalog');
      await expectNoSeriousA11yViolations(page, 'catalog');

      // Every error at once: no name, no handle, an avatar that is not a web address.
      await page.getByRole('button', { name: 'New Specialist', exact: true }).click();
      const form = page.getByRole('form', { name: 'New Specialist' });
      await form.getByRole('textbox', { name: 'Avatar address' }).fill('ftp://files.example.com/a.png');
      await form.getByRole('button', { name: 'Create Specialist', exact: true }).click();
      await form.getByRole('alert').filter({ hasText: '3 fields need a change' }).waitFor();
      for (const message of ['A name is required', 'Lowercase letters, digits and hyphens; 2 to 63 characters', 'Must be an http:// or https:// URL']) {
        await form.getByText(message, { exact: true }).waitFor();
      }
      await expectNoHorizontalOverflow(page, 'new Specialist form');

      // A Specialist with no catalog rate: the handle follows the name.
      const name = `Nadia Brook ${viewport.name}`;
      const handle = `nadia-brook-${viewport.name}`;
      await form.getByRole('textbox', { name: /^Name/ }).fill(name);
      expect(await form.getByRole('textbox', { name: /^Handle/ }).inputValue()).toBe(handle);
      await form.getByRole('textbox', { name: 'Avatar address' }).fill('');
      await form.getByRole('textbox', { name: 'Routing email' }).fill(`nadia.${viewport.name}@route.example.com`);
      const skills = form.getByLabel('Skills', { exact: true });
      await skills.fill('Payroll');
      await skills.press('Enter');
      await skills.fill('Spanish');
      await skills.press('Enter');
      await form.getByRole('textbox', { name: 'Persona' }).fill('Warm, precise, never guesses.');
      await form.getByRole('button', { name: 'Create Specialist', exact: true }).click();
      await form.waitFor({ state: 'detached' });
      await page.getByText(`${name} is in the catalog.`).waitFor();
      const card = page.locator(`[data-testid="specialist-card"][data-handle="${handle}"]`);
      await card.waitFor();
      expect(await card.getByTestId('specialist-rate').textContent()).toBe('No catalog rate');
      expect(await card.textContent()).toContain('Payroll');

      // Set a rate: an amount above the limit is refused with the limit, not clamped.
      await card.getByRole('button', { name: `Edit ${name}`, exact: true }).click();
      const edit = page.getByRole('form', { name: 'Edit Specialist' });
      const rate = edit.getByRole('textbox', { name: 'Catalog monthly rate' });
      await rate.fill('2000000');
      await edit.getByRole('textbox', { name: 'Currency' }).fill('EUR');
      await edit.getByRole('button', { name: 'Save', exact: true }).click();
      await edit.getByText('At most 1,000,000', { exact: true }).waitFor();
      expect(await rate.inputValue()).toBe('2,000,000');
      await rate.fill('1200');
      await edit.getByRole('button', { name: 'Save', exact: true }).click();
      await edit.waitFor({ state: 'detached' });
      await expect.poll(() => card.getByTestId('specialist-rate').textContent(), { timeout: TIMEOUT }).toContain('1,200');

      // Take the rate away again: an empty amount is "no catalog rate".
      await card.getByRole('button', { name: `Edit ${name}`, exact: true }).click();
      await edit.getByRole('textbox', { name: 'Catalog monthly rate' }).fill('');
      await edit.getByRole('button', { name: 'Save', exact: true }).click();
      await edit.waitFor({ state: 'detached' });
      await expect.poll(() => card.getByTestId('specialist-rate').textContent(), { timeout: TIMEOUT }).toBe('No catalog rate');
      const token = (await api<{ token: string }>(sessions.baseUrl, '/auth/login', { method: 'POST', body: { email: 'superadmin@platform.demo.invalid', password: 'demo1234' } })).body.token;
      const stored = await api<{ items: Array<{ slug: string; monthly_rate_config: unknown; skillTags: string[] }> }>(sessions.baseUrl, `/specialists?q=${handle}`, { token });
      expect(stored.body.items).toEqual([expect.objectContaining({ slug: handle, monthly_rate_config: null, skillTags: ['Payroll', 'Spanish'] })]);

      // The search is in the address, and a reload keeps it.
      await page.getByRole('searchbox', { name: 'Search' }).fill(`brook ${viewport.name}`);
      await page.waitForURL((url) => url.searchParams.get('q') === `brook ${viewport.name}`, { timeout: TIMEOUT });
      await expect.poll(() => page.getByTestId('specialist-card').count(), { timeout: TIMEOUT }).toBe(1);
      await page.reload();
      await expect.poll(() => page.getByTestId('specialist-card').count(), { timeout: TIMEOUT }).toBe(1);
      expect(await page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe(`brook ${viewport.name}`);
    });
  }
});
