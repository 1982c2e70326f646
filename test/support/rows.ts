import { sql, type SQL } from 'drizzle-orm';
import type { DbService } from '../../src/platform/db/db.service.js';

/** What rows are read through: the app's database service, or a drizzle database or transaction. */
export type RowSource = DbService | { execute(query: SQL): Promise<unknown> };

type Where = Record<string, unknown>;

const executor = (db: RowSource) => ('root' in db ? db.root : db);

/** A query's rows, on PGlite (an array) and on PostgreSQL (`{ rows }`) alike. */
export function resultRows<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/**
 * Rows as stored (column names as in the database): `rows(db, 'orgs', { slug: 'acme' })` reads a
 * table by equal columns (`null` matches IS NULL); `rows(db, sql\`...\`)` runs any query.
 */
export async function rows<T = Record<string, unknown>>(db: RowSource, table: string, where?: Where): Promise<T[]>;
export async function rows<T = Record<string, unknown>>(db: RowSource, query: SQL): Promise<T[]>;
export async function rows<T>(db: RowSource, from: string | SQL, where: Where = {}): Promise<T[]> {
  const query = typeof from === 'string' ? tableQuery(from, where) : from;
  return resultRows<T>(await executor(db).execute(query));
}

function tableQuery(table: string, where: Where): SQL {
  const conditions = Object.entries(where).map(([column, value]) => (value === null ? sql`${sql.identifier(column)} is null` : sql`${sql.identifier(column)} = ${value}`));
  const filter = conditions.length > 0 ? sql` where ${sql.join(conditions, sql` and `)}` : sql``;
  return sql`select * from ${sql.identifier(table)}${filter}`;
}
