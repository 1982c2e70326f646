import type { DatabaseHandle } from './database.js';

/**
 * Runs `fn` while this process holds a PostgreSQL session advisory lock, so instances doing the
 * same start-up work (creating queues, seeding) take turns instead of deadlocking. PGlite serves
 * one process: `fn` runs at once.
 */
export async function withAdvisoryLock<T>(handle: DatabaseHandle, key: number, fn: () => Promise<T>): Promise<T> {
  if (handle.kind === 'pglite') return fn();
  const client = await handle.pool!.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [key]);
    try {
      return await fn();
    } finally {
      await client.query('select pg_advisory_unlock($1)', [key]);
    }
  } finally {
    client.release();
  }
}
