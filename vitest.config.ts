import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.spec.ts', 'test/**/*.spec.ts'],
    exclude: ['node_modules/**', 'dist/**', 'web/**', 'test/browser/**', 'test/process/**'],
    environment: 'node',
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Each test file boots its own app on its own database copy; two at a time fit this machine.
    maxWorkers: 2,
    // A test that boots a second app inside itself needs its boot time on a loaded machine too;
    // the limit is a safety net, never the assertion (tests state their own time bounds).
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
