import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** The sizes the SuperAdmin pages are checked at: a phone, a small laptop and a desktop. */
export const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'laptop', width: 1280, height: 800 },
  { name: 'desktop', width: 1440, height: 900 },
] as const;

export const TIMEOUT = 15_000;

export async function api<T>(baseUrl: string, path: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(`${baseUrl}/api${path}`, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined && { 'Content-Type': 'application/json' }), ...(init.token && { Authorization: `Bearer ${init.token}` }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json().catch(() => undefined)) as T };
}

export async function signInAsSuperadmin(page: Page): Promise<void> {
  await page.goto('/login');
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill('superadmin@platform.demo.invalid');
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill('demo1234');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/ops/clients', { timeout: TIMEOUT });
}

/** The page never scrolls sideways: wide content scrolls inside its own box. */
export async function expectNoHorizontalOverflow(page: Page, what: string): Promise<void> {
  const sizes = await page.evaluate<{ scroll: number; view: number }>('({ scroll: document.documentElement.scrollWidth, view: window.innerWidth })');
  expect(sizes.scroll, `${what}: page width ${sizes.scroll} > viewport ${sizes.view}`).toBeLessThanOrEqual(sizes.view);
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core on the page as it is: no serious or critical violation, colour contrast included
 * (injected through the debugger, so the CSP stays whole).
 */
export async function expectNoSeriousA11yViolations(page: Page, what: string): Promise<void> {
  const loaded = await page.evaluate('typeof window.axe');
  if (loaded === 'undefined') await page.evaluate(axeSource);
  const violations = await page.evaluate<Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>>(
    `window.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target })) })))`,
  );
  expect(violations, `${what}: accessibility`).toEqual([]);
}
