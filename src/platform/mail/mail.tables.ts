import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * Every outgoing mail is written here first (in the caller's transaction). Without SMTP the row is
 * the delivery (the development outbox); with SMTP a job sends it and stamps `sent_at`.
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    to: text('to').notNull(),
    /** The sender when it is not MAIL_FROM (a Specialist's workspace address). */
    fromAddress: text('from_address'),
    /** Message-ID, In-Reply-To and References of a threaded reply. */
    headers: jsonb('headers').$type<Record<string, string>>(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    html: text('html'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Carries a secret (sign-in, reset or onboarding code, invite link): its body is erased once sent. */
    sensitive: boolean('sensitive').notNull().default(false),
    /** When the subject and body of a sensitive mail were erased (sent, or kept for their 24 hours). */
    erasedAt: timestamp('erased_at', { withTimezone: true }),
  },
  (t) => [
    index('mail_outbox_to_idx').on(t.to, t.createdAt),
    index('mail_outbox_created_at_idx').on(t.createdAt),
    index('mail_outbox_secrets_idx')
      .on(t.createdAt)
      .where(sql`${t.sensitive} and ${t.erasedAt} is null`),
  ],
);
export type MailOutboxRow = typeof mailOutbox.$inferSelect;
