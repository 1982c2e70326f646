import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** Tests of the built service: in Debian's chromium, and as a process. One file at a time. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: {
    environment: 'node',
    include: ['test/browser/**/*.browser.spec.ts', 'test/process/**/*.process.spec.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
