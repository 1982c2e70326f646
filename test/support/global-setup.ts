import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { createApp } from '../../src/app.factory.js';
import { createDatabaseFrom, dropDatabase, randomDbName, withDatabase, adminUrl } from './databases.js';
import { testEnv } from './env.js';
import { loadConfig } from '../../src/platform/config/config.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL runs: the template databases every test file copies. */
    pgTemplates: { base: string; seeded: string; runPrefix: string } | null;
    /** PGlite runs: dumped data directories every test file loads. */
    pgliteTemplates: { base: string; seeded: string } | null;
    sharedDataDir: string;
  }
}

/**
 * Runs once per test run: migrates one database, starts the job queue on it once (its schema),
 * then seeds a copy with the demo data. Test files copy these templates instead of migrating.
 */
export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cos-test-'));
  project.provide('sharedDataDir', dataDir);
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) {
    const runPrefix = randomDbName('cos_test');
    const base = `${runPrefix}_base`;
    const seeded = `${runPrefix}_seeded`;
    await createDatabaseFrom(databaseUrl, base);
    const baseApp = await createApp(loadConfig(testEnv({ DATA_DIR: dataDir, DATABASE_URL: withDatabase(databaseUrl, base) })), { seed: false });
    await baseApp.close();
    await createDatabaseFrom(databaseUrl, seeded, base);
    const seededApp = await createApp(loadConfig(testEnv({ DATA_DIR: dataDir, DATABASE_URL: withDatabase(databaseUrl, seeded) })), { seed: true });
    await seededApp.close();
    project.provide('pgTemplates', { base, seeded, runPrefix });
    project.provide('pgliteTemplates', null);
    return async () => {
      // Drop the templates and any copy a crashed test file left behind.
      const client = new pg.Client({ connectionString: adminUrl(databaseUrl) });
      await client.connect();
      const { rows } = await client.query<{ datname: string }>('select datname from pg_database where datname like $1', [`${runPrefix}%`]);
      await client.end();
      for (const { datname } of rows) await dropDatabase(databaseUrl, datname);
      rmSync(dataDir, { recursive: true, force: true });
    };
  }
  const baseApp = await createApp(loadConfig(testEnv({ DATA_DIR: dataDir })), { embedded: { memory: true }, seed: false });
  // A dump is taken from a running app: drop its scheduler lease so test apps lead at once.
  const releaseLease = (app: typeof baseApp) => app.dbService.handle.pglite!.exec('delete from leader_locks');
  await releaseLease(baseApp);
  const baseDump = await baseApp.dbService.handle.pglite!.dumpDataDir('none');
  await baseApp.close();
  const seededApp = await createApp(loadConfig(testEnv({ DATA_DIR: dataDir })), { embedded: { memory: true, loadDataDir: baseDump }, seed: true });
  await releaseLease(seededApp);
  const seededDump = await seededApp.dbService.handle.pglite!.dumpDataDir('none');
  await seededApp.close();
  const base = join(dataDir, 'base.tar');
  const seeded = join(dataDir, 'seeded.tar');
  writeFileSync(base, Buffer.from(await baseDump.arrayBuffer()));
  writeFileSync(seeded, Buffer.from(await seededDump.arrayBuffer()));
  project.provide('pgTemplates', null);
  project.provide('pgliteTemplates', { base, seeded });
  return () => rmSync(dataDir, { recursive: true, force: true });
}
