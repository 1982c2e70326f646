import { sql, type Column, type Placeholder, type SQL } from 'drizzle-orm';
import type { Keyset } from '../http/pagination.js';

/** An ILIKE pattern matching `q` anywhere, with `%`, `_` and `\` taken literally. */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The keyset condition of every list (API-MAP "Conventions"): rows after the cursor's
 * (timestamp, id) in the list's order; undefined on the first page. Pair it with
 * `orderBy(desc(at), desc(id))` for newest first or `orderBy(asc(at), asc(id))` for oldest first;
 * `id` is the primary key of the table of `at`.
 *
 * The cursor carries milliseconds (a JS Date) while the column keeps microseconds, so the bound is
 * the cursor row's own timestamp, read by its id: comparing with the cut one would skip rows of the
 * same millisecond (newest first) or serve the cursor row again (oldest first). A cursor row gone
 * meanwhile falls back to the cursor's timestamp.
 */
export function afterKeyset(order: 'desc' | 'asc', at: Column, id: Column, k: Keyset | undefined): SQL | undefined {
  if (!k) return undefined;
  return keysetAfter(order, at, id, sql`coalesce((select ${at} from ${at.table} where ${id} = ${k.id}::uuid), ${k.at.toISOString()}::timestamptz)`, k.id);
}

/**
 * The same condition on a computed sort key (an aggregate, in HAVING): no row holds it, so the bound
 * is the cursor's own timestamp.
 */
export function afterComputedKeyset(order: 'desc' | 'asc', at: SQL, id: Column, k: Keyset | undefined): SQL | undefined {
  if (!k) return undefined;
  return keysetAfter(order, at, id, sql`${k.at.toISOString()}::timestamptz`, k.id);
}

function keysetAfter(order: 'desc' | 'asc', at: Column | SQL, id: Column, bound: SQL, afterId: string): SQL {
  return order === 'desc' ? sql`(${at}, ${id}) < (${bound}, ${afterId}::uuid)` : sql`(${at}, ${id}) > (${bound}, ${afterId}::uuid)`;
}

/** Rows after the keyset in (timestamp desc, id desc) order: newest first. */
export const olderThan = (at: Column, id: Column, k: Keyset | undefined) => afterKeyset('desc', at, id, k);
/** Rows after the keyset in (timestamp asc, id asc) order: oldest first. */
export const newerThan = (at: Column, id: Column, k: Keyset | undefined) => afterKeyset('asc', at, id, k);

/**
 * `column = any(<uuids>)`: one array parameter however many ids (an IN list takes one per id), so
 * the statement's text does not change with their number; a placeholder in a prepared statement.
 */
export function anyUuid(column: Column, ids: readonly string[] | Placeholder): SQL {
  return sql`${column} = any(${Array.isArray(ids) ? sql.param(ids) : ids}::uuid[])`;
}

/**
 * A timestamptz as the text a JS Date's `toISOString()` writes (`2024-03-05T01:02:03.123Z`), for
 * JSON the database writes itself: its microseconds cut to milliseconds, not rounded, as the Date
 * node-pg makes of the column keeps them (`.123999` is `.123`).
 */
export function isoText(at: Column | SQL.Aliased | SQL): SQL<string> {
  return sql<string>`to_char(${at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
