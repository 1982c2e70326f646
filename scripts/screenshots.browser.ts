import { mkdir, readdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { beforeAll, it } from 'vitest';
import { openMenu, openScreen, readDemoConversations, signInPage, type DemoIds } from '../test/browser/support/screens.js';
import { SCREENSHOT_DIR, SCREENSHOT_SIZES, SHOT_FILES, SHOTS, shotFile } from '../test/browser/support/screenshots.js';
import { browserSessions } from '../test/browser/support/sessions.js';

/**
 * Writes the README's screenshots (test/browser/support/screenshots.ts lists them) of the built
 * app on the demo data the server seeds on its first start (conversations, the attention list,
 * a month of history for the analytics), and removes any other PNG there.
 */

const OUT_DIR = fileURLToPath(new URL(`../${SCREENSHOT_DIR}/`, import.meta.url));

const sessions = browserSessions({ timeout: 15_000 });
let ids: Pick<DemoIds, 'queueConversationId' | 'clientConversationId'>;

beforeAll(async () => {
  await mkdir(OUT_DIR, { recursive: true });
  for (const file of await readdir(OUT_DIR)) if (file.endsWith('.png') && !SHOT_FILES.includes(file)) await rm(`${OUT_DIR}${file}`);
  ids = await readDemoConversations(sessions.baseUrl);
});

for (const shot of SHOTS) {
  it(`takes ${shot.name}`, async () => {
    const page = await sessions.newPage();
    if (shot.user) await signInPage(page, sessions.baseUrl, shot.user);
    for (const size of SCREENSHOT_SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await openScreen(page, shot.path(ids));
      // The mouse away from every control (no hover state in the picture); charts done drawing.
      await page.mouse.move(0, size.height - 1);
      await page.waitForTimeout(1_000);
      if (size.name === 'phone' && shot.menuOnPhone) await openMenu(page);
      await page.screenshot({ path: `${OUT_DIR}${shotFile(shot, size)}`, animations: 'disabled', caret: 'hide' });
    }
  });
}
