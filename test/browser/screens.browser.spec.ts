import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO,
  EXPECTED_NAV,
  ONBOARDING_ADMIN,
  SCREEN_SIZES,
  SCREENS,
  horizontalOverflow,
  isFolded,
  navigation,
  navigationLinks,
  openMenu,
  openScreen,
  readDemoIds,
  seriousAxeViolations,
  signInOnboardingAdmin,
  signInPage,
  unreachableShellControls,
  type DemoEmail,
  type DemoIds,
  type Screen,
} from './support/screens.js';
import { browserSessions } from './support/sessions.js';

/**
 * Every page of spec 4.1 (and the sign-in page) at a phone (390x844), a laptop (1280x800) and a
 * desktop (1440x900), opened by the demo user whose page it is: the page is never wider than the
 * window, every link of the navigation, the bell, who is signed in, the role and Sign out are on
 * screen and clickable (in the Burger menu on the phone), and axe-core finds no serious or
 * critical accessibility violation. The public pages a signed-in user opens (the onboarding steps
 * after the code, a member invitation) have no shell to check. Then each user follows every link
 * of their navigation.
 */

const TIMEOUT = 15_000;
const sessions = browserSessions({ timeout: TIMEOUT });

let ids: DemoIds;
/** One signed-in page per demo user (its own context), reused across the screens. */
const signedIn = new Map<DemoEmail | typeof ONBOARDING_ADMIN, Page>();
let anonymous: Page;

beforeAll(async () => {
  ids = await readDemoIds(sessions.baseUrl);
  anonymous = await sessions.newPage();
});

async function pageOf(user: Screen['user']): Promise<Page> {
  if (user === null) return anonymous;
  let page = signedIn.get(user);
  if (!page) {
    page = await sessions.newPage();
    if (user === ONBOARDING_ADMIN) await signInOnboardingAdmin(page, sessions.baseUrl, ids);
    else await signInPage(page, sessions.baseUrl, user);
    signedIn.set(user, page);
  }
  return page;
}

const waitForPath = (page: Page, path: string) => page.waitForURL((url) => url.pathname === path, { timeout: TIMEOUT });

for (const size of SCREEN_SIZES) {
  const folded = isFolded(size);

  describe(`at ${size.width}x${size.height} (${size.name})`, () => {
    for (const screen of SCREENS) {
      it(`${screen.name}: fits the window, the shell is within reach, no serious accessibility violation`, async () => {
        const page = await pageOf(screen.user);
        await page.setViewportSize({ width: size.width, height: size.height });
        const path = screen.path(ids);
        await openScreen(page, path);
        await screen.reach?.(page);
        expect(`${new URL(page.url()).pathname}${new URL(page.url()).search}`, 'stays on the page').toBe(path);
        expect(await page.getByRole('heading', { level: 1, name: 'Not found', exact: true }).count()).toBe(0);

        const { overflow, widest } = await horizontalOverflow(page);
        expect(overflow, `wider than the window, at ${widest.join(', ')}`).toBeLessThanOrEqual(0);

        if (screen.user !== null && !screen.withoutShell) expect(await unreachableShellControls(page, folded), 'out of reach').toEqual([]);

        expect(await seriousAxeViolations(page), 'axe-core, impact serious or critical').toEqual([]);
      });
    }

    for (const user of [DEMO.superadmin, DEMO.accountManager, DEMO.expert, DEMO.orgAdmin, DEMO.member]) {
      it(`${user} sees the navigation of their role and each of its links opens its page`, async () => {
        const page = await pageOf(user);
        await page.setViewportSize({ width: size.width, height: size.height });
        await page.goto('/');
        // The landing page: '/' sends a signed-in user there.
        await waitForPath(page, EXPECTED_NAV[user][0]!.path);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        if (folded) await openMenu(page);
        expect(await navigationLinks(page)).toEqual(EXPECTED_NAV[user]);

        for (const { label, path } of EXPECTED_NAV[user]) {
          if (folded) await openMenu(page);
          await navigation(page).getByRole('link', { name: label, exact: true }).click();
          await page.waitForURL((url) => url.pathname === path || url.pathname.startsWith(`${path}/`), { timeout: TIMEOUT });
          await page.getByRole('heading', { level: 1 }).first().waitFor();
          expect(await page.getByRole('heading', { level: 1, name: 'Not found', exact: true }).count(), `${label} opens a page`).toBe(0);
          // The link of the open page is marked as the current one; on a phone the menu closed itself.
          if (folded) {
            await expect.poll(() => page.getByRole('button', { name: 'Menu', exact: true }).getAttribute('aria-expanded'), { timeout: TIMEOUT }).toBe('false');
            await openMenu(page);
          }
          // The area's pages load on demand: the link is marked once the new page has rendered.
          await expect.poll(() => navigation(page).getByRole('link', { name: label, exact: true }).getAttribute('aria-current'), { timeout: TIMEOUT }).toBe('page');
          if (folded) await page.getByRole('button', { name: 'Menu', exact: true }).click();
        }
        await page.goto('/');
        await waitForPath(page, EXPECTED_NAV[user][0]!.path);
      });
    }
  });
}
