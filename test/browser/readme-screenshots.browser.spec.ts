import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SCREENSHOT_DIR, SCREENSHOT_SIZES, SHOT_FILES } from './support/screenshots.js';

/**
 * The README's screenshots are made by `npm run screenshots` from the list in
 * support/screenshots.ts (no test run rewrites them: a picture changes whenever the demo data's
 * dates do). This keeps the three in step: README shows exactly the files of that list, each one
 * is there, is a PNG of the size it was taken at, and stays small; no stale picture is left over.
 * A page that changed its looks is not caught here: run `npm run screenshots` after such a change.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAX_BYTES = 150_000;

/** Width and height from a PNG's IHDR chunk. */
function pngSize(data: Buffer): { width: number; height: number } {
  expect(data.subarray(0, 8).toString('hex'), 'a PNG signature').toBe('89504e470d0a1a0a');
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

describe('the README screenshots', () => {
  it('README shows exactly the pictures `npm run screenshots` takes, and each is there, small, at its size', async () => {
    const readme = await readFile(`${ROOT}README.md`, 'utf8');
    const shown = [...readme.matchAll(new RegExp(`${SCREENSHOT_DIR}/([\\w.-]+\\.png)`, 'g'))].map((match) => match[1]!);
    expect([...new Set(shown)].sort()).toEqual([...SHOT_FILES].sort());

    const onDisk = (await readdir(`${ROOT}${SCREENSHOT_DIR}`)).filter((file) => file.endsWith('.png'));
    expect(onDisk.sort(), 'no picture missing, none left over').toEqual([...SHOT_FILES].sort());

    for (const file of SHOT_FILES) {
      const data = await readFile(`${ROOT}${SCREENSHOT_DIR}/${file}`);
      expect(data.length, `${file} is small`).toBeLessThanOrEqual(MAX_BYTES);
      const size = SCREENSHOT_SIZES.find((candidate) => file.includes(`-${candidate.name}`))!;
      expect(pngSize(data), file).toEqual({ width: size.width, height: size.height });
    }
  });
});
