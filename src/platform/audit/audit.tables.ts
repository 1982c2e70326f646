import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** Audit rows of spec 2.10: the action, the acting user (userId) and the target (resourceId). */
export const auditLog = pgTable(
  'audit_log',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    action: text('action').notNull(),
    userId: uuid('user_id'),
    resourceId: text('resource_id'),
    orgId: uuid('org_id'),
    impersonatorId: uuid('impersonator_id'),
    meta: jsonb('meta').$type<Record<string, unknown>>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('audit_log_user_idx').on(t.userId, t.createdAt),
    index('audit_log_resource_idx').on(t.resourceId, t.createdAt),
    index('audit_log_action_idx').on(t.action, t.createdAt),
    index('audit_log_created_at_idx').on(t.createdAt),
    index('audit_log_org_idx').on(t.orgId, t.createdAt),
  ],
);
export type AuditRow = typeof auditLog.$inferSelect;
