import type { Browser, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchUnwatchedChromium, watchContentSecurityPolicy } from './support/browser.js';
import { startServer, type RunningServer } from './support/server.js';

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  browser = await launchUnwatchedChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the built web app under its Content-Security-Policy', () => {
  it('signs in and opens the chat (scripts, styles, images, the socket) with no violation, every answer carrying the headers', async () => {
    const context = await browser.newContext({ baseURL: server.baseUrl });
    const violations = await watchContentSecurityPolicy(context);
    const page = await context.newPage();
    const responses: Response[] = [];
    page.on('response', (response) => responses.push(response));
    await page.goto('/login');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill('client@acme.demo.invalid');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('demo1234');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/client/chat', { timeout: 15_000 });
    await page.getByRole('heading', { level: 1, name: 'Chat', exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(violations).toEqual([]);

    const document = responses.find((r) => r.request().resourceType() === 'document')!;
    const csp = (await document.allHeaders())['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    const assets = responses.filter((r) => new URL(r.url()).pathname.startsWith('/assets/'));
    expect(assets.map((r) => r.request().resourceType())).toEqual(expect.arrayContaining(['script']));
    for (const response of [document, ...assets, ...responses.filter((r) => new URL(r.url()).pathname.startsWith('/api/'))]) {
      const headers = await response.allHeaders();
      expect(headers, response.url()).toMatchObject({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'strict-origin-when-cross-origin', 'x-frame-options': 'DENY' });
    }
    await context.close();
  });

  it('blocks an inline script, and the browser tests see the violation', async () => {
    const context = await browser.newContext({ baseURL: server.baseUrl });
    const violations = await watchContentSecurityPolicy(context);
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByRole('textbox', { name: 'Email', exact: true }).waitFor();
    expect(violations).toEqual([]);
    const ran = await page.evaluate<boolean>(`(async () => {
      const script = document.createElement('script');
      script.textContent = 'window.inlineScriptRan = true;';
      document.head.appendChild(script);
      await new Promise((r) => setTimeout(r, 100));
      return window.inlineScriptRan === true;
    })()`);
    expect(ran).toBe(false);
    await expect.poll(() => violations.join('\n')).toMatch(/script-src/);
    await context.close();
  });
});
