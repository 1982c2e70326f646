import { AsyncLocalStorage } from 'node:async_hooks';
import { is, SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { logger } from '../observability/logger.js';
import type { Database, DatabaseHandle, Db, ScriptStep, Transaction } from './database.js';

/** A drizzle query made with `sql.placeholder()` parameters, before `.prepare()`. */
export interface Preparable<Result> {
  prepare(name: string): { execute(values?: Record<string, unknown>): Promise<Result> };
}

/**
 * A statement of a script kept prepared by PostgreSQL on each connection, under its name: parsed
 * and planned once per connection, then run by `EXECUTE` with each call's values. Its text must be
 * the same on every call (only the values change), else the script is refused.
 */
export interface PreparedScriptStatement {
  name: string;
  sql: SQL;
}

/** A prepared statement: run it with the values of its placeholders. */
export type PreparedStatement<Result, Values extends object> = (values: Values) => Promise<Result>;

interface TxContext {
  tx: Transaction;
  afterCommit: Array<() => unknown>;
}

/**
 * The database of the running app. `db` is the open transaction of the current async context when
 * there is one, so repositories join a transaction without being handed it.
 */
export class DbService {
  private readonly als = new AsyncLocalStorage<TxContext>();
  private openTransactions = 0;
  migrated = false;

  constructor(readonly handle: DatabaseHandle) {}

  get db(): Db {
    return this.als.getStore()?.tx ?? this.handle.db;
  }

  get root(): Database {
    return this.handle.db;
  }

  get inTransaction(): boolean {
    return this.als.getStore() !== undefined;
  }

  /**
   * A statement of fixed shape, built once: `build` makes it on the given database with
   * `sql.placeholder()` for every value (a value written into it would be frozen at its first use).
   * Outside a transaction it runs as a named prepared statement: drizzle builds its SQL once per
   * process, and PostgreSQL parses and plans it once per connection. Inside a transaction it is
   * built on the open transaction, so it reads the transaction's own writes and takes its locks.
   * With `root`, it always runs on the root database, outside any transaction (a write that must
   * stand whatever becomes of the caller's transaction). The name is the statement's on every
   * connection: one name, one statement.
   */
  prepared<Result, Values extends object>(name: string, build: (db: Db) => Preparable<Result>, options: { root?: boolean } = {}): PreparedStatement<Result, Values> {
    let onRoot: ReturnType<Preparable<Result>['prepare']> | undefined;
    return (values) => {
      const placeholders = values as Record<string, unknown>;
      const tx = options.root ? undefined : this.als.getStore()?.tx;
      if (tx) return build(tx).prepare(name).execute(placeholders);
      onRoot ??= build(this.handle.db).prepare(name);
      return onRoot.execute(placeholders);
    };
  }

  /** Runs fn in one transaction (joins the current one when nested); after-commit hooks run once it commits. */
  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const current = this.als.getStore();
    if (current) return fn(current.tx);
    const hooks: Array<() => unknown> = [];
    let result: T;
    this.openTransactions++;
    try {
      result = await this.handle.db.transaction(async (tx) => this.als.run({ tx, afterCommit: hooks }, () => fn(tx)));
    } finally {
      // On Node 20 an enabled AsyncLocalStorage taxes every promise of the process (async hooks):
      // keep it enabled only while a transaction is open. run() enables it again.
      if (--this.openTransactions === 0) this.als.disable();
    }
    for (const hook of hooks) {
      try {
        await hook();
      } catch (err) {
        logger.error({ err }, 'after-commit hook failed');
      }
    }
    return result;
  }

  /**
   * Defers a side effect (audit row, realtime push, job enqueue) until the current transaction
   * commits; runs it at once outside a transaction. A rolled-back transaction drops it.
   */
  afterCommit(fn: () => unknown): void {
    const current = this.als.getStore();
    if (current) {
      current.afterCommit.push(fn);
      return;
    }
    void Promise.resolve()
      .then(fn)
      .catch((err) => logger.error({ err }, 'side effect failed'));
  }

  /**
   * Statements sent together in one round trip, committed together or not at all (an implicit
   * transaction), each reading with a snapshot of its own taken when it starts: so a statement sees
   * what committed while an earlier one waited for a lock. Their values are written in as literals
   * (`pg.escapeLiteral`), so they take strings, finite numbers, booleans and nulls only. Outside a
   * transaction only (its locks would otherwise last as long as the caller's). A
   * `PreparedScriptStatement` is parsed and planned once per connection and run by `EXECUTE` with
   * its values (the same literals). The rows of the last.
   */
  async script<Row>(statements: Array<SQL | PreparedScriptStatement>): Promise<Row[]> {
    if (this.inTransaction) throw new Error('a script runs outside any transaction');
    const steps = statements.map((statement): ScriptStep => {
      const { name, sql: text } = is(statement, SQL) ? { name: undefined, sql: statement } : statement;
      const query = dialect.sqlToQuery(text);
      return { name, text: query.sql, values: query.params.map(literal) };
    });
    return ((await this.handle.runScript(steps)).at(-1) ?? []) as Row[];
  }

  async ping(): Promise<boolean> {
    try {
      await this.handle.db.execute(sql`select 1`);
      return true;
    } catch {
      return false;
    }
  }
}

const dialect = new PgDialect();

function literal(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') {
    // The script's text travels as one NUL-terminated string: a NUL would cut it short.
    if (value.includes('\u0000')) throw new Error('a script cannot carry a NUL character (PostgreSQL stores none in text either)');
    return pg.escapeLiteral(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new Error(`a script takes strings, finite numbers, booleans and nulls, not ${typeof value}`);
}
