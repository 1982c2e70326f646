import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { launchChromium } from './browser.js';
import { startServer, type RunningServer } from './server.js';

export interface BrowserSessions {
  /** The origin of the server of this file. */
  readonly baseUrl: string;
  /** A page in a browser context of its own (its own localStorage, so its own session), at `size` when given. */
  newPage(size?: { width: number; height: number }): Promise<Page>;
}

/**
 * The built server and chromium for one test file, booted before its tests and stopped after
 * them. Uncaught errors of any of its pages fail the file.
 */
export function browserSessions(
  options: {
    timeout?: number;
    setUpContext?: (context: BrowserContext, baseUrl: string) => Promise<void>;
    /** Settings added to the server's environment (a channel's signing secret). */
    env?: Record<string, string>;
  } = {},
): BrowserSessions {
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startServer(options.env);
    browser = await launchChromium();
  });

  afterAll(async () => {
    try {
      for (const context of contexts) await context.close();
      // Throws when a page broke the Content-Security-Policy: the server is stopped all the same.
      await browser?.close();
    } finally {
      await server?.stop();
    }
    expect(pageErrors, 'uncaught errors in the page').toEqual([]);
  });

  return {
    get baseUrl() {
      if (!server) throw new Error('The server is not started yet');
      return server.baseUrl;
    },
    async newPage(size) {
      if (!server || !browser) throw new Error('The server is not started yet');
      const context = await browser.newContext({ baseURL: server.baseUrl });
      await options.setUpContext?.(context, server.baseUrl);
      contexts.push(context);
      const page = await context.newPage();
      if (size) await page.setViewportSize({ width: size.width, height: size.height });
      if (options.timeout) page.setDefaultTimeout(options.timeout);
      page.on('pageerror', (error) => pageErrors.push(error.message));
      return page;
    },
  };
}
