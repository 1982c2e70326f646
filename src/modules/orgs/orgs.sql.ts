import { sql, type Column, type SQL } from 'drizzle-orm';
import { orgs } from './orgs.tables.js';

/**
 * An org's legal name as a scalar subquery on another query's org id column: other modules show
 * it beside their rows in one statement (the attention list) without reading this module's table.
 */
export function orgLegalNameOf(orgId: Column | SQL.Aliased | SQL): SQL<string | null> {
  return sql<string | null>`(select ${orgs.legalName} from ${orgs} where ${orgs.id} = ${orgId})`;
}
