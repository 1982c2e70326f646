import { index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { orgs } from '../orgs/orgs.tables.js';
import { users } from '../users/users.tables.js';

/**
 * One invite per org. The token is random (32 bytes), kept sealed (so the AM can copy the link
 * again) and found through the SHA-256 of it; a resend extends `expires_at` and keeps the token.
 */
export const orgInvites = pgTable(
  'org_invites',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    adminUserId: uuid('admin_user_id').references(() => users.id, { onDelete: 'set null' }),
    tokenSealed: text('token_sealed').notNull(),
    tokenHash: text('token_hash').notNull(),
    /** Null until the invite is sent: the link can be copied before. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    /** An onboarding code signed the admin in: the code cannot sign in again. */
    otpUsedAt: timestamp('otp_used_at', { withTimezone: true }),
    /** Wrong onboarding codes since the AM last sent the invite (at most 5, whatever the number of codes mailed). */
    otpFailedAttempts: integer('otp_failed_attempts').notNull().default(0),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('org_invites_org_key').on(t.orgId), uniqueIndex('org_invites_token_hash_key').on(t.tokenHash), index('org_invites_expires_idx').on(t.expiresAt)],
);
export type OrgInviteRow = typeof orgInvites.$inferSelect;
