import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { beforeAll, it } from 'vitest';
import { browserSessions } from '../test/browser/support/sessions.js';
import { DEMO, SCREEN_SIZES, openMenu, openScreen, readDemoIds, signInPage, type DemoEmail, type DemoIds } from '../test/browser/support/screens.js';

/** Writes docs/screenshots/<name>-<size>.png of the main pages, at laptop and phone size. */

const OUT_DIR = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
const SIZES = SCREEN_SIZES.filter((size) => size.name === 'laptop' || size.name === 'phone');

const SHOTS: readonly { name: string; user: DemoEmail | null; path: (ids: DemoIds) => string; menuOnPhone?: boolean }[] = [
  { name: 'sign-in', user: null, path: () => '/login' },
  { name: 'client-chat', user: DEMO.orgAdmin, path: () => '/client/chat' },
  { name: 'workspace-queue', user: DEMO.expert, path: () => '/workspace/queue', menuOnPhone: true },
  { name: 'ops-clients', user: DEMO.accountManager, path: () => '/ops/clients' },
  { name: 'ops-analytics', user: DEMO.superadmin, path: () => '/ops/analytics' },
];

const sessions = browserSessions({ timeout: 15_000 });
let ids: DemoIds;

beforeAll(async () => {
  await mkdir(OUT_DIR, { recursive: true });
  ids = await readDemoIds(sessions.baseUrl);
});

for (const shot of SHOTS) {
  it(`takes ${shot.name}`, async () => {
    const page = await sessions.newPage();
    if (shot.user) await signInPage(page, sessions.baseUrl, shot.user);
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await openScreen(page, shot.path(ids));
      // The mouse away from every control (no hover state in the picture).
      await page.mouse.move(0, size.height - 1);
      await page.screenshot({ path: `${OUT_DIR}${shot.name}-${size.name}.png`, animations: 'disabled', caret: 'hide' });
      if (size.name === 'phone' && shot.menuOnPhone) {
        await openMenu(page);
        await page.screenshot({ path: `${OUT_DIR}${shot.name}-${size.name}-menu.png`, animations: 'disabled', caret: 'hide' });
      }
    }
  });
}
