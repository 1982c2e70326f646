import { and, eq, lt, or, sql, type Column, type Placeholder, type SQL } from 'drizzle-orm';
import type { Keyset } from '../http/pagination.js';

/** An ILIKE pattern matching `q` anywhere, with `%`, `_` and `\` taken literally. */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Rows after the keyset in (timestamp desc, id desc) order; undefined on the first page. */
export function olderThan(at: Column, id: Column, k: Keyset | undefined): SQL | undefined {
  return k ? or(lt(at, k.at), and(eq(at, k.at), lt(id, k.id))) : undefined;
}

/**
 * `column = any(<uuids>)`: one array parameter however many ids (an IN list takes one per id), so
 * the statement's text does not change with their number; a placeholder in a prepared statement.
 */
export function anyUuid(column: Column, ids: readonly string[] | Placeholder): SQL {
  return sql`${column} = any(${Array.isArray(ids) ? sql.param(ids) : ids}::uuid[])`;
}
