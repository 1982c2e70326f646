import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { resultRows } from '../support/rows.js';

const databaseUrl = process.env.DATABASE_URL;

describe.runIf(databaseUrl)('a connection the PostgreSQL server ends in the middle of a transaction', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cos-connection-loss-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('fails that transaction without ending the process, and the pool carries on', async () => {
    const handle = await openDatabase({ databaseUrl, dataDir });
    const db = new DbService(handle);
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      const transaction = db.transaction(async (tx) => {
        const [row] = resultRows<{ pid: number }>(await tx.execute(sql`select pg_backend_pid() as pid`));
        await admin.query('select pg_terminate_backend($1)', [row!.pid]);
        // The server's goodbye arrives while the client is checked out and between statements.
        await new Promise((r) => setTimeout(r, 300));
        await tx.execute(sql`select 1`);
      });
      await expect(transaction).rejects.toThrow();
      expect(await db.ping()).toBe(true);
      expect(resultRows<{ n: number }>(await db.root.execute(sql`select 41 + 1 as n`))[0]!.n).toBe(42);
    } finally {
      await admin.end();
      await handle.close();
    }
  });
});
