import { index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export type OtpPurpose = 'login' | 'invite' | 'password_reset';

/** One-time email codes: stored as a keyed hash only, with expiry and an attempt counter. */
export const emailOtpCodes = pgTable(
  'email_otp_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    purpose: text('purpose').$type<OtpPurpose>().notNull(),
    /** For invite codes: the invite they belong to. */
    subjectId: text('subject_id'),
    codeHash: text('code_hash').notNull(),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('email_otp_codes_lookup_idx').on(t.email, t.purpose, t.createdAt)],
);
export type EmailOtpCodeRow = typeof emailOtpCodes.$inferSelect;
