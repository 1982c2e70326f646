import { sql, type Column, type SQL } from 'drizzle-orm';
import { specialists } from './specialists.tables.js';

/**
 * A catalog Specialist's name as a scalar subquery on another query's Specialist id column: other
 * modules show it beside their rows in one statement (the attention list) without reading this
 * module's table.
 */
export function specialistNameOf(specialistId: Column | SQL.Aliased | SQL): SQL<string | null> {
  return sql<string | null>`(select ${specialists.name} from ${specialists} where ${specialists.id} = ${specialistId})`;
}
