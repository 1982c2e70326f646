import { and, eq, gt, lt, or, sql, type Column, type Placeholder, type SQL } from 'drizzle-orm';
import type { Keyset } from '../http/pagination.js';

/** An ILIKE pattern matching `q` anywhere, with `%`, `_` and `\` taken literally. */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The keyset condition of every list (API-MAP "Conventions"): rows after the cursor's
 * (timestamp, id) in the list's order; undefined on the first page. Pair it with
 * `orderBy(desc(at), desc(id))` for newest first or `orderBy(asc(at), asc(id))` for oldest first.
 */
export function afterKeyset(order: 'desc' | 'asc', at: Column, id: Column, k: Keyset | undefined): SQL | undefined {
  if (!k) return undefined;
  const past = order === 'desc' ? lt : gt;
  return or(past(at, k.at), and(eq(at, k.at), past(id, k.id)));
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
