import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { USER_STATUSES, type PlatformRole, type UserStatus } from '../../contracts/roles.js';
import { oneOf } from '../../platform/db/checks.js';

/** Users of spec 2.7. Email is stored lower-cased; `password_changed_at` keeps milliseconds (token revocation). */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    name: text('name').notNull().default(''),
    platformRole: text('platform_role').$type<PlatformRole>().notNull(),
    status: text('status').$type<UserStatus>().notNull().default('active'),
    passwordHash: text('password_hash'),
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    totpSecretEnc: text('totp_secret_enc'),
    totpEnabled: boolean('totp_enabled').notNull().default(false),
    /** The time step of the last TOTP code accepted: a code is never accepted twice. */
    totpLastStep: integer('totp_last_step'),
    lastLoginAt: timestamp('last_login_at', { withTimezone: true }),
    /** Set when an administrator removed (anonymised) the user; the row stays for history. */
    removedAt: timestamp('removed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_email_key').on(t.email),
    index('users_platform_role_idx').on(t.platformRole),
    index('users_created_at_idx').on(t.createdAt),
    oneOf('users_status_check', t.status, USER_STATUSES),
  ],
);
export type UserRow = typeof users.$inferSelect;
export type NewUserRow = typeof users.$inferInsert;
