import { sql } from 'drizzle-orm';
import { rows } from './rows.js';
import type { TestApp } from './test-app.js';

/** Bookkeeping of the scheduler and the job queue: written by timers, not by requests. */
const BACKGROUND_TABLES = new Set(['leader_locks', 'periodic_task_runs', 'llm_cost_rollup_days']);

export type RowCounts = Record<string, number>;

/**
 * Row counts of every table of the service's own schema, in one round trip: a refused request
 * must leave them as they were (no stored row from a refused request).
 */
export async function rowCounter(app: TestApp): Promise<() => Promise<RowCounts>> {
  const db = app.running.dbService.root;
  const tables = (await rows<{ tablename: string }>(db, sql`select tablename from pg_tables where schemaname = 'public' order by tablename`))
    .map((r) => r.tablename)
    .filter((t) => !BACKGROUND_TABLES.has(t));
  const query = sql.raw(`select ${tables.map((t) => `(select count(*) from "${t}")::int as "${t}"`).join(', ')}`);
  return async () => (await rows<RowCounts>(db, query))[0]!;
}

/** The tables whose count differs, as `table: before -> after`. */
export function countChanges(before: RowCounts, after: RowCounts): string[] {
  return Object.keys(after)
    .filter((t) => before[t] !== after[t])
    .map((t) => `${t}: ${before[t]} -> ${after[t]}`);
}
