import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { orgs, type OrgStatus } from './orgs.tables.js';

/**
 * Every org's id and legal name, as a subquery that another module's statement joins on its own
 * org id column (the attention list shows the name beside each item) without reading this
 * module's table. Joined, the names are read once per statement (a hash of a small table, the
 * primary key of a large one), not once per row as a scalar subquery would be.
 */
export const orgLegalNames = new QueryBuilder().select({ id: orgs.id, legalName: orgs.legalName }).from(orgs).as('org_legal_names');

/**
 * The ids among `orgIds` (a `uuid[]` value of another statement) of the orgs in one of `statuses`,
 * as a `uuid[]` scalar subquery: another module's statement asks it without reading this module's
 * table itself. Qualified by its own alias, so `orgIds` may name the outer statement's columns.
 */
export function orgIdsInStatus(orgIds: SQLWrapper, statuses: readonly OrgStatus[]): SQL<string[]> {
  const o = (column: { name: string }) => sql`o.${sql.identifier(column.name)}`;
  return sql<string[]>`array(select ${o(orgs.id)} from ${orgs} o where ${o(orgs.id)} = any(${orgIds}) and ${o(orgs.status)} = any(${`{${statuses.join(',')}}`}::text[]))`;
}
