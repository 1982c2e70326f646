import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, timestamp, uuid, varchar } from 'drizzle-orm/pg-core';

/**
 * AppNotification (spec 2.6): exactly its stored fields, its two indexes, and one more: the list of
 * one recipient, newest first: (recipient, created_at, id) read backwards gives its order however
 * many rows the recipient has (the two single-column indexes make PostgreSQL sort them all).
 */
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
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`clock_timestamp()`),
  },
  (t) => [
    index('app_notifications_recipient_user_id_idx').on(t.recipientUserId),
    index('app_notifications_created_at_idx').on(t.createdAt),
    index('app_notifications_recipient_newest_idx').on(t.recipientUserId, t.createdAt, t.id),
  ],
);
export type AppNotificationRow = typeof appNotifications.$inferSelect;
