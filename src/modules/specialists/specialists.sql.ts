import { QueryBuilder } from 'drizzle-orm/pg-core';
import { specialists } from './specialists.tables.js';

/**
 * Every catalog Specialist's id and name, as a subquery that another module's statement joins on
 * its own Specialist id column (the attention list) without reading this module's table: the
 * names are read once per statement, not once per row.
 */
export const specialistNames = new QueryBuilder().select({ id: specialists.id, name: specialists.name }).from(specialists).as('specialist_names');
