import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm run screenshots`: the README's pictures of the built web app, taken in chromium with the
 * browser tests' support (server, demo users). Not a test: `npm test` and `npm run test:browser`
 * never run it.
 */
export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    environment: 'node',
    include: ['scripts/screenshots.browser.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
