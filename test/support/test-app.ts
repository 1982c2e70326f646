import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { createApp, type RunningApp } from '../../src/app.factory.js';
import { CONFIG_SLICES } from '../../src/app.config.js';
import { loadConfig } from '../../src/platform/config/config.js';
import { createDatabaseFrom, dropDatabase, randomDbName, withDatabase } from './databases.js';
import { testEnv } from './env.js';
import { HttpClient } from './http.js';
import { Redis } from 'ioredis';

export interface TestAppOptions {
  /** Start from the demo data (default) or from an empty, migrated database. */
  seeded?: boolean;
  /** Extra environment (throttle limits, APP_ENV, secrets...). */
  env?: Record<string, string | undefined>;
  /** Use this machine's Redis when the run has REDIS_URL (default true). */
  redis?: boolean;
  /** Run periodic work (default true); false for a test that runs each sweep itself (`CreateAppOptions.periodic`). */
  periodic?: boolean;
  /** Another instance of the same deployment: same PostgreSQL database and Redis prefix (PostgreSQL runs only). */
  shareWith?: TestApp;
}

export interface TestApp extends HttpClient {
  running: RunningApp;
  url: string;
  env: Record<string, string | undefined>;
  close(): Promise<void>;
}

/**
 * Boots the whole service for a test file: its own copy of the template database (PostgreSQL
 * when the run has DATABASE_URL, PGlite otherwise), its own Redis key prefix, a real HTTP port.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const seeded = options.seeded ?? true;
  const dataDir = mkdtempSync(join(tmpdir(), 'cos-app-'));
  const pgTemplates = inject('pgTemplates');
  const pgliteTemplates = inject('pgliteTemplates');
  const databaseUrl = process.env.DATABASE_URL;
  const env: Record<string, string | undefined> = { DATA_DIR: dataDir, ...options.env };
  let dbName: string | undefined;
  let embedded;
  if (options.shareWith) {
    if (!options.shareWith.env.DATABASE_URL) throw new Error('shareWith needs a PostgreSQL run');
    env.DATABASE_URL = options.shareWith.env.DATABASE_URL;
  } else if (databaseUrl && pgTemplates) {
    dbName = randomDbName(pgTemplates.runPrefix);
    await createDatabaseFrom(databaseUrl, dbName, seeded ? pgTemplates.seeded : pgTemplates.base);
    env.DATABASE_URL = withDatabase(databaseUrl, dbName);
  } else if (pgliteTemplates) {
    const tar = readFileSync(seeded ? pgliteTemplates.seeded : pgliteTemplates.base);
    embedded = { memory: true, loadDataDir: new Blob([tar]) };
  } else {
    throw new Error('test templates missing: is test/support/global-setup.ts configured?');
  }
  if (process.env.REDIS_URL && options.redis !== false) {
    env.REDIS_URL = process.env.REDIS_URL;
    env.REDIS_KEY_PREFIX = options.shareWith?.env.REDIS_KEY_PREFIX ?? `cos-test:${randomBytes(6).toString('hex')}:`;
  }
  const config = loadConfig(testEnv(env), CONFIG_SLICES);
  const running = await createApp(config, { embedded, seed: false, periodic: options.periodic });
  await running.app.listen(0, '127.0.0.1');
  const address = running.app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  const client = new HttpClient(url);
  return Object.assign(client, {
    running,
    url,
    env,
    async close() {
      await running.close();
      if (dbName && databaseUrl) await dropDatabase(databaseUrl, dbName);
      if (env.REDIS_KEY_PREFIX) await deleteRedisKeys(process.env.REDIS_URL!, env.REDIS_KEY_PREFIX);
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
