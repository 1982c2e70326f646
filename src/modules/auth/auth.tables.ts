import { index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from '../users/users.tables.js';

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

/**
 * Two-factor recovery codes: each is a keyed hash, usable once, so a user who lost the
 * authenticator can still sign in. A new set replaces the old one.
 */
export const totpRecoveryCodes = pgTable(
  'totp_recovery_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('totp_recovery_codes_user_hash_key').on(t.userId, t.codeHash)],
);

/** Why a session ended: its user signed out (one session or all), or an impersonation was stopped. */
export type SessionEndReason = 'logout' | 'logout_all' | 'impersonation_stopped' | 'impersonation_ended';

/**
 * Server-side sign-in sessions (API-MAP "Sessions, sockets and hardening"): every token names one
 * in its `sid` claim and is refused once the session has ended or expired.
 */
export const authSessions = pgTable(
  'auth_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** How it started: password, email_otp, invite_otp, onboarding, bootstrap, demo, impersonation... */
    method: text('method').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    endReason: text('end_reason').$type<SessionEndReason>(),
  },
  (t) => [index('auth_sessions_user_idx').on(t.userId)],
);
export type AuthSessionRow = typeof authSessions.$inferSelect;
