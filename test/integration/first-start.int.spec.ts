import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type RunningApp } from '../../src/app.factory.js';
import { loadConfig } from '../../src/platform/config/config.js';
import { createDatabaseFrom, dropDatabase, randomDbName, withDatabase } from '../support/databases.js';
import { testEnv } from '../support/env.js';
import { resultRows } from '../support/rows.js';

const databaseUrl = process.env.DATABASE_URL;

describe.runIf(databaseUrl)('several instances starting together on an empty PostgreSQL database', () => {
  const dbName = randomDbName('cos_first_start');
  const dataDir = mkdtempSync(join(tmpdir(), 'cos-first-start-'));
  const apps: RunningApp[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
    await dropDatabase(databaseUrl!, dbName);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('all come up: migrations, job queues and the demo seed are done once, without a deadlock or a duplicate', async () => {
    await createDatabaseFrom(databaseUrl!, dbName);
    const config = loadConfig(testEnv({ DATA_DIR: dataDir, DATABASE_URL: withDatabase(databaseUrl!, dbName) }));
    const started = await Promise.allSettled([1, 2, 3].map(() => createApp(config, { seed: true })));
    for (const s of started) if (s.status === 'fulfilled') apps.push(s.value);
    expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'started'))).toEqual(['started', 'started', 'started']);
    const db = apps[0]!.dbService.root;
    const superadmins = resultRows<{ n: number }>(await db.execute(sql`select count(*)::int as n from users where platform_role = 'superadmin'`));
    expect(superadmins[0]!.n).toBe(1);
    const orgs = resultRows<{ n: number }>(await db.execute(sql`select count(*)::int as n from orgs where slug = 'acme'`));
    expect(orgs[0]!.n).toBe(1);
    const assignments = resultRows<{ n: number }>(await db.execute(sql`select count(*)::int as n from org_specialist_assignments`));
    expect(assignments[0]!.n).toBe(1);
    const queues = resultRows<{ name: string }>(await db.execute(sql`select name from pgboss.queue order by name`)).map((q) => q.name);
    expect(queues).toContain('channels.inbound');
    expect(new Set(queues).size).toBe(queues.length);
  }, 120_000);
});
