import { join } from 'node:path';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { projectRoot } from '../paths.js';
import type { DatabaseHandle } from './database.js';

/** The committed drizzle-kit migrations, found from src/ and from dist/src/ alike. */
export function migrationsFolder(): string {
  return join(projectRoot(), 'drizzle');
}

const MIGRATION_LOCK = 7_410_221; // pg_advisory_lock key: one instance migrates at a time

/** Applies the committed migrations; instances starting together take turns. */
export async function runMigrations(handle: DatabaseHandle): Promise<void> {
  const folder = migrationsFolder();
  if (handle.kind === 'pglite') {
    await migratePglite(handle.db as unknown as PgliteDatabase, { migrationsFolder: folder });
    return;
  }
  const client = await handle.pool!.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await migratePg(handle.db as unknown as NodePgDatabase, { migrationsFolder: folder });
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
