import { QueryBuilder } from 'drizzle-orm/pg-core';
import { orgs } from './orgs.tables.js';

/**
 * Every org's id and legal name, as a subquery that another module's statement joins on its own
 * org id column (the attention list shows the name beside each item) without reading this
 * module's table. Joined, the names are read once per statement (a hash of a small table, the
 * primary key of a large one), not once per row as a scalar subquery would be.
 */
export const orgLegalNames = new QueryBuilder().select({ id: orgs.id, legalName: orgs.legalName }).from(orgs).as('org_legal_names');
