import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { OrgRole } from '../../contracts/roles.js';
import { orgs } from '../orgs/orgs.tables.js';
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

/**
 * An invitation of an existing user to an org (API-MAP "Sessions, sockets and hardening"): nothing
 * changes for the user until they accept it, signed in as themselves, with the mailed token. Only
 * a keyed hash of the token is kept; one open invitation per org and user (a new one replaces it).
 */
export const orgMemberInvitations = pgTable(
  'org_member_invitations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The address the invitation went to: accepting needs the same user with the same address. */
    email: text('email').notNull(),
    orgRole: text('org_role').$type<OrgRole>().notNull(),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('org_member_invitations_org_user_key').on(t.orgId, t.userId), uniqueIndex('org_member_invitations_token_key').on(t.tokenHash)],
);
export type OrgMemberInvitationRow = typeof orgMemberInvitations.$inferSelect;
