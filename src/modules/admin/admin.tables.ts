import { index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from '../users/users.tables.js';

/** SuperAdmin impersonation sessions (spec 5.8): who, as whom, why, and when it started and ended. */
export const impersonationSessions = pgTable(
  'impersonation_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    impersonatorId: uuid('impersonator_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    targetUserId: uuid('target_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    reason: text('reason').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    /** The sign-in session of the impersonation token (auth_sessions). */
    sessionId: uuid('session_id'),
    /** The SuperAdmin's own sign-in session that started it: given back when the impersonation stops. */
    impersonatorSessionId: uuid('impersonator_session_id'),
  },
  (t) => [
    index('impersonation_sessions_started_idx').on(t.startedAt),
    index('impersonation_sessions_impersonator_idx').on(t.impersonatorId, t.startedAt),
    index('impersonation_sessions_target_idx').on(t.targetUserId, t.startedAt),
  ],
);
export type ImpersonationSessionRow = typeof impersonationSessions.$inferSelect;
