import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.js';
import { DbService } from '../../src/platform/db/db.service.js';

/** `DbService.script`: statements sent together, values written in as literals. Both database paths. */
describe.each([
  ['the embedded database', undefined],
  ['PostgreSQL', process.env.DATABASE_URL],
] as const)('a script on %s', (_name, databaseUrl) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cos-script-'));
  let handle: DatabaseHandle;
  let db: DbService;
  // A table of this run's own (not a temporary one: a pool's statements go to several connections).
  const probe = sql.identifier(`script_probe_${randomBytes(6).toString('hex')}`);

  beforeAll(async () => {
    if (_name === 'PostgreSQL' && !databaseUrl) return;
    handle = await openDatabase({ databaseUrl, dataDir, embedded: databaseUrl ? undefined : { memory: true } });
    db = new DbService(handle);
    await db.root.execute(sql`create table ${probe} (id int primary key, body text not null)`);
  });
  afterAll(async () => {
    await db?.root.execute(sql`drop table if exists ${probe}`);
    await handle?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.skipIf(_name === 'PostgreSQL' && !databaseUrl)('keeps every value exactly, quotes, backslashes and placeholders-like text included, and answers the last statement', async () => {
    const hostile = `it's \\'; drop table probe; -- $1 $$ \\x00 é 😀`;
    const rows = await db.script<{ id: number; body: string; n: number }>([
      sql`insert into ${probe} (id, body) values (${1}, ${hostile})`,
      sql`select id, body, ${2.5}::float8 > 2 as n from ${probe} where id = ${1} and ${true} and ${null}::text is null`,
    ]);
    expect(rows).toEqual([{ id: 1, body: hostile, n: true }]);
  });

  it.skipIf(_name === 'PostgreSQL' && !databaseUrl)('commits all or nothing: a failing statement undoes the ones before it', async () => {
    await expect(db.script([sql`insert into ${probe} (id, body) values (${2}, ${'first'})`, sql`insert into ${probe} (id, body) values (${1}, ${'duplicate key'})`])).rejects.toThrow();
    expect(await db.script([sql`select count(*)::int as n from ${probe} where id = ${2}`])).toEqual([{ n: 0 }]);
  });

  it.skipIf(_name === 'PostgreSQL' && !databaseUrl)('runs a named statement prepared once per connection, by EXECUTE with its values, however many scripts share the connection', async () => {
    const name = `probe_insert_${randomBytes(4).toString('hex')}`;
    const insert = (id: number, body: string) => ({ name, sql: sql`insert into ${probe} (id, body) values (${id}, ${body}) returning id, body` });
    const hostile = `it's \\'; $1 é`;
    // Concurrent scripts (PGlite's one connection, or as many of the pool's as it opens): each prepares it at most once.
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => db.script<{ id: number; body: string }>([sql`select 1`, insert(100 + i, `${hostile} ${i}`)])));
    expect(results.map((r) => r[0])).toEqual(Array.from({ length: 12 }, (_, i) => ({ id: 100 + i, body: `${hostile} ${i}` })));
    const statements = await db.script<{ n: number }>([sql`select count(*)::int as n from pg_prepared_statements where name = ${name}`]);
    expect(statements).toEqual([{ n: 1 }]);
    // All or nothing, as any script: the prepared insert's duplicate key undoes the statement before it.
    await expect(db.script([sql`insert into ${probe} (id, body) values (${200}, ${'first'})`, insert(100, 'duplicate key')])).rejects.toThrow();
    expect(await db.script([sql`select count(*)::int as n from ${probe} where id = ${200}`])).toEqual([{ n: 0 }]);
    // One name, one text.
    await expect(db.script([{ name, sql: sql`select ${1}` }])).rejects.toThrow(/another text/);
    await expect(db.script([{ name: 'Not-Plain', sql: sql`select ${1}` }])).rejects.toThrow(/plain name/);
  });

  it.skipIf(!databaseUrl)('writes a named statement out once a connection turns out not to hold what it prepared (a pooler in transaction mode)', async () => {
    // One connection, whose prepared statements are dropped behind the script's back, as a pooler
    // handing the next transaction another server connection would.
    const single = await openDatabase({ databaseUrl, dataDir, poolSize: 1 });
    const one = new DbService(single);
    try {
      const name = `probe_count_${randomBytes(4).toString('hex')}`;
      const count = (id: number) => one.script<{ n: number }>([{ name, sql: sql`select count(*)::int as n from ${probe} where id >= ${id}` }]);
      expect(await count(0)).toEqual([{ n: expect.any(Number) }]);
      expect(await one.script([sql`select count(*)::int as n from pg_prepared_statements where name = ${name}`])).toEqual([{ n: 1 }]);
      await single.pool!.query('deallocate all');
      // The script that finds it gone runs again written out: the caller sees its rows, not the error.
      const [{ n }] = await count(0);
      expect(await count(1_000_000)).toEqual([{ n: 0 }]);
      expect(n).toBeGreaterThan(0);
      // From then on nothing is prepared again.
      expect(await one.script([sql`select count(*)::int as n from pg_prepared_statements where name = ${name}`])).toEqual([{ n: 0 }]);
    } finally {
      await single.close();
    }
  });

  it.skipIf(_name === 'PostgreSQL' && !databaseUrl)('refuses a NUL, a value it cannot write as a literal, and a call inside a transaction', async () => {
    await expect(db.script([sql`select ${'a\u0000b'}`])).rejects.toThrow(/NUL/);
    await expect(db.script([sql`select ${{ an: 'object' }}`])).rejects.toThrow(/not object/);
    await expect(db.transaction(() => db.script([sql`select 1`]))).rejects.toThrow(/outside any transaction/);
  });
});
