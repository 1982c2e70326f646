import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { OrgRole } from '../../contracts/roles.js';
import { orgs } from '../orgs/orgs.tables.js';
import { users } from './users.tables.js';

/**
 * A user's membership of an org, with its orgRole (spec 2.7). In its own file, not users.tables.ts:
 * orgs.tables.ts references users, and table files must not import each other in a cycle.
 */
export const orgMemberships = pgTable(
  'org_memberships',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    orgRole: text('org_role').$type<OrgRole>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('org_memberships_org_user_key').on(t.orgId, t.userId), index('org_memberships_user_idx').on(t.userId)],
);
export type OrgMembershipRow = typeof orgMemberships.$inferSelect;
