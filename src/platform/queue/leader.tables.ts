import { bigint, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Leases for periodic work: one holder per name until `expires_at` (TTL 30 s, spec 8). */
export const leaderLocks = pgTable('leader_locks', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/** The last period each periodic task ran in: a task runs once per period, whichever instance leads. */
export const periodicTaskRuns = pgTable('periodic_task_runs', {
  name: text('name').primaryKey(),
  period: bigint('period', { mode: 'number' }).notNull(),
  ranAt: timestamp('ran_at', { withTimezone: true }).notNull().defaultNow(),
});
