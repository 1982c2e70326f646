import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, timestamp, uuid, varchar } from 'drizzle-orm/pg-core';

/** AppNotification (spec 2.6): exactly its stored fields and indexes. */
export const appNotifications = pgTable(
  'app_notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    recipientUserId: text('recipient_user_id').notNull(),
    eventType: varchar('event_type', { length: 100 }).notNull(),
    title: text('title'),
    body: text('body'),
    meta: jsonb('meta').$type<Record<string, unknown>>(),
    readAt: timestamp('read_at', { withTimezone: true }),
    // clock_timestamp(): rows written in one transaction still sort in the order they were made.
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().default(sql`clock_timestamp()`),
  },
  (t) => [index('app_notifications_recipient_user_id_idx').on(t.recipientUserId), index('app_notifications_created_at_idx').on(t.createdAt)],
);
export type AppNotificationRow = typeof appNotifications.$inferSelect;
