import { sql, type AnyColumn } from 'drizzle-orm';
import { check } from 'drizzle-orm/pg-core';

/**
 * A CHECK that `column` holds one of `values`, made from the same const array as the column's
 * TypeScript type, so the database refuses what the type does not name and the two cannot drift.
 * The values are code constants, inlined as literals (a CHECK takes no parameters).
 */
export function oneOf(name: string, column: AnyColumn, values: readonly string[]) {
  const literals = values.map((v) => `'${v.replaceAll("'", "''")}'`).join(', ');
  return check(name, sql`${column} in (${sql.raw(literals)})`);
}
