import { index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { orgs } from '../orgs/orgs.tables.js';

/** Client briefs (spec 9.2): what the Specialist agent is told about the client's business. */
export const clientBriefs = pgTable(
  'client_briefs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    content: text('content').notNull(),
    createdBy: uuid('created_by'),
    updatedBy: uuid('updated_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('client_briefs_org_idx').on(t.orgId, t.createdAt)],
);
export type ClientBriefRow = typeof clientBriefs.$inferSelect;
