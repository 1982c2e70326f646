import { chromium, type Browser, type BrowserContext } from 'playwright-core';

const VIOLATION = 'Content Security Policy violation';

/** Debian's chromium (`apt-get install chromium`); playwright's own browser downloads cannot work here. */
function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/**
 * Collects every Content-Security-Policy violation of the context's pages (an inline script, a
 * style or image from where the policy forbids, a connection elsewhere): each page reports its
 * `securitypolicyviolation` events on the console, and chromium's own CSP console errors count too.
 */
export async function watchContentSecurityPolicy(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (e) => console.error(${JSON.stringify(VIOLATION)} + ': ' + e.effectiveDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + (e.sourceFile || e.documentURI) + ':' + e.lineNumber));`,
  });
  context.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

/**
 * Chromium for a browser test. Every context it opens is watched for CSP violations, and closing
 * the browser fails (so the file fails) when a page broke the policy.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await launch();
  const watched: string[][] = [];
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args: Parameters<Browser['newContext']>) => {
    const context = await newContext(...args);
    watched.push(await watchContentSecurityPolicy(context));
    return context;
  };
  const close = browser.close.bind(browser);
  browser.close = async (...args: Parameters<Browser['close']>) => {
    await close(...args);
    const violations = watched.flat();
    if (violations.length > 0) throw new Error(`Content Security Policy violations in the web app:\n  ${violations.join('\n  ')}`);
  };
  return browser;
}

/** Chromium without the watch (the test of the watch itself). */
export const launchUnwatchedChromium = launch;
