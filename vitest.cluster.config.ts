import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Several instances of the built service as processes: `npm run test:cluster` (on the run's
 * PostgreSQL and Redis) and `npm run test:faults` (on private PostgreSQL and Redis servers the
 * tests start and stop). One file at a time: each starts its own instances.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: {
    environment: 'node',
    include: ['test/process/**/*.cluster.spec.ts', 'test/process/**/*.faults.spec.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
