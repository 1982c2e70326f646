import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { makePrivate } from '../config/data-dir.js';
import { logger } from '../observability/logger.js';

/** The one database type every repository is written against (pg and PGlite alike). */
export type Database = PgDatabase<PgQueryResultHKT>;
export type Transaction = PgTransaction<PgQueryResultHKT, Record<string, never>, ExtractTablesWithRelations<Record<string, never>>>;
/** What a repository function takes: the root database or an open transaction. */
export type Db = Database | Transaction;

/** Raw SQL runner, as pg-boss's `db.executeSql` wants it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg-boss's own signature: its rows are any
export type ExecuteSql = (text: string, values?: unknown[]) => Promise<{ rows: any[] }>;

export interface DatabaseHandle {
  readonly kind: 'postgres' | 'pglite';
  readonly db: Database;
  readonly executeSql: ExecuteSql;
  /**
   * Runs statements without parameters (values written in as literals), all sent at once: one
   * round trip, one implicit transaction (they commit together or not at all), each statement
   * reading with a snapshot of its own. A named step is kept prepared on each connection: the
   * first script that needs it there prepares it (one round trip, once per connection), and
   * every script runs it by `EXECUTE` with its values. The rows of each, in order.
   */
  readonly runScript: (steps: ScriptStep[]) => Promise<unknown[][]>;
  readonly pool?: pg.Pool;
  readonly pglite?: PGlite;
  close(): Promise<void>;
}

/**
 * One statement of a script: its text with `$n` placeholders and the literals of its values,
 * written in, or with a `name`, kept prepared by PostgreSQL and run by `EXECUTE` with them.
 */
export interface ScriptStep {
  name?: string;
  text: string;
  values: string[];
}

/** The prepared script statements of each connection, by name (one name, one text). */
class ScriptPreparations {
  private readonly byConnection = new WeakMap<object, Map<string, Promise<unknown>>>();
  private readonly texts = new Map<string, string>();

  /**
   * Prepares on this connection the named steps it does not hold yet (`run` sends a statement on
   * it), once each even when scripts share the connection (PGlite's one); a failed `PREPARE` is
   * tried again by the next script.
   */
  async ensure(connection: object, steps: ScriptStep[], run: (text: string) => Promise<unknown>): Promise<void> {
    let known = this.byConnection.get(connection);
    if (!known) this.byConnection.set(connection, (known = new Map<string, Promise<unknown>>()));
    for (const step of steps) {
      const name = step.name;
      if (name === undefined) continue;
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`a prepared script statement needs a plain name, not ${name}`);
      const text = this.texts.get(name) ?? step.text;
      if (text !== step.text) throw new Error(`the prepared script statement ${name} was given another text`);
      this.texts.set(name, text);
      let ready = known.get(name);
      if (!ready) {
        ready = run(`prepare ${name} as ${step.text}`);
        known.set(name, ready);
        const kept = known;
        ready.catch(() => kept.delete(name));
      }
      await ready;
    }
  }
}

/** The script's text: each step written out, or as the `EXECUTE` of its prepared statement (`prepared`). */
function scriptText(steps: ScriptStep[], prepared: boolean): string {
  return steps
    .map((step) => {
      if (step.name === undefined || !prepared) return inlineValues(step.text, step.values);
      return `execute ${step.name}${step.values.length > 0 ? `(${step.values.join(', ')})` : ''}`;
    })
    .join(';\n');
}

/** A statement's text with each `$n` replaced by the literal of its value. */
function inlineValues(text: string, literals: string[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => literals[Number(n) - 1]!);
}

/** PostgreSQL's `invalid_sql_statement_name`: an `EXECUTE` of a statement the connection does not hold. */
const UNKNOWN_STATEMENT = '26000';
/** `duplicate_prepared_statement`: a `PREPARE` of a name the (pooled) server connection holds already. */
const DUPLICATE_STATEMENT = '42P05';

export interface EmbeddedOptions {
  /** Keep the embedded database in memory (tests). */
  memory?: boolean;
  /** Start from a dumped data directory (tests load a migrated template). */
  loadDataDir?: Blob;
}

export interface OpenDatabaseInput {
  databaseUrl?: string;
  dataDir: string;
  poolSize?: number;
  embedded?: EmbeddedOptions;
}

// Timestamps travel as JS Dates; bigints (counts) as numbers where they fit.
pg.types.setTypeParser(20, (v) => {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
});

export async function openDatabase(input: OpenDatabaseInput): Promise<DatabaseHandle> {
  const preparations = new ScriptPreparations();
  /** Named script steps are prepared per connection until a connection is found without one it prepared. */
  let keepsPrepared = true;
  if (input.databaseUrl) {
    const pool = new pg.Pool({ connectionString: input.databaseUrl, max: input.poolSize ?? 10, application_name: 'client-organization-service' });
    // An idle client that errors (server restart) must not crash the process; the pool replaces it.
    pool.on('error', () => undefined);
    // Nor may a checked-out one (a transaction between two statements when the server goes away):
    // pg-pool listens only to idle clients. Its queries fail, and the pool drops it on release.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = drizzlePg(pool) as unknown as Database;
    return {
      kind: 'postgres',
      db,
      pool,
      executeSql: (text, values) => pool.query(text, values as unknown[]),
      runScript: async (steps) => {
        const client = await pool.connect();
        let failure: unknown;
        // Without values pg uses the simple query protocol: one result per statement (one alone is not in an array).
        const run = async (prepared: boolean) => {
          const results = (await client.query(scriptText(steps, prepared))) as pg.QueryResult | pg.QueryResult[];
          return (Array.isArray(results) ? results : [results]).map((r) => r.rows as unknown[]);
        };
        try {
          if (keepsPrepared && steps.some((step) => step.name !== undefined)) {
            try {
              await preparations.ensure(client, steps, (text) =>
                client.query(text).catch((err: unknown) => {
                  if (!(err instanceof pg.DatabaseError && err.code === DUPLICATE_STATEMENT)) throw err;
                }),
              );
              return await run(true);
            } catch (err) {
              // A pooler between us and PostgreSQL (PgBouncer's transaction mode) gave this script
              // another server connection than its PREPARE: nothing of the script ran (it failed
              // as a whole), so it runs again written out, and so do the scripts after it.
              if (!(err instanceof pg.DatabaseError && err.code === UNKNOWN_STATEMENT)) throw err;
              keepsPrepared = false;
              logger.warn({ err: err.message }, 'a connection lost a prepared script statement: scripts are sent written out from now on');
            }
          }
          return await run(false);
        } catch (err) {
          failure = err;
          throw err;
        } finally {
          // A statement PostgreSQL refused leaves the connection usable; anything else ends it.
          client.release(failure === undefined || failure instanceof pg.DatabaseError ? undefined : (failure as Error));
        }
      },
      close: () => pool.end(),
    };
  }
  let pglite: PGlite;
  let releaseLock = () => {};
  if (input.embedded?.memory) {
    pglite = new PGlite({ loadDataDir: input.embedded.loadDataDir });
  } else {
    const dir = join(input.dataDir, 'pglite');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    releaseLock = lockDataDir(dir);
    pglite = new PGlite(dir, { loadDataDir: input.embedded?.loadDataDir });
  }
  await pglite.waitReady;
  // PGlite unpacks its initial files world-readable whatever the umask: make them private.
  if (!input.embedded?.memory) makePrivate(join(input.dataDir, 'pglite'));
  const db = drizzlePglite(pglite) as unknown as Database;
  return {
    kind: 'pglite',
    db,
    pglite,
    executeSql: async (text, values) => {
      if (values && values.length > 0) return pglite.query(text, values);
      const results = await pglite.exec(text);
      return { rows: results.at(-1)?.rows ?? [] };
    },
    runScript: async (steps) => {
      await preparations.ensure(pglite, steps, (text) => pglite.exec(text));
      return (await pglite.exec(scriptText(steps, true))).map((r) => r.rows as unknown[]);
    },
    close: async () => {
      await pglite.close();
      releaseLock();
    },
  };
}

/**
 * The embedded database is a single-process store: a second process opening the same directory
 * would corrupt it, so the directory is locked to the process that opened it.
 */
function lockDataDir(dir: string): () => void {
  const file = join(dir, '.owner.pid');
  if (existsSync(file)) {
    const pid = Number(readFileSync(file, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
      throw new Error(`the embedded database in ${dir} is in use by process ${pid}; stop it or set another DATA_DIR`);
    }
  }
  writeFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
