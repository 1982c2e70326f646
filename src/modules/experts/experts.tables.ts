import { index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { orgs } from '../orgs/orgs.tables.js';
import { users } from '../users/users.tables.js';

/** Expert access grants (spec 2.4): the only mechanism of Expert coverage. */
export const expertGrants = pgTable(
  'expert_grants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    expertId: uuid('expert_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    scope: text('scope').$type<'org' | 'specialist'>().notNull(),
    /** Catalog Specialist ids, for scope 'specialist'. */
    specialistIds: uuid('specialist_ids').array().notNull().default([]),
    createdBy: uuid('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('expert_grants_org_idx').on(t.orgId), index('expert_grants_expert_idx').on(t.expertId)],
);
export type ExpertGrantRow = typeof expertGrants.$inferSelect;
