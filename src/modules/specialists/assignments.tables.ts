import { sql } from 'drizzle-orm';
import { boolean, date, index, numeric, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { oneOf } from '../../platform/db/checks.js';
import { orgs } from '../orgs/orgs.tables.js';
import { specialists } from './specialists.tables.js';

/**
 * OrgSpecialistAssignment (spec 2.3): the unit of operation and billing. Unassigning keeps the
 * row (`unassigned_at`) for billing history; only active rows count for the uniqueness rules.
 */
export const orgSpecialistAssignments = pgTable(
  'org_specialist_assignments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    specialistId: uuid('specialist_id')
      .notNull()
      .references(() => specialists.id, { onDelete: 'restrict' }),
    isPrimary: boolean('is_primary').notNull().default(false),
    /** Null: the catalog rate applies. */
    monthlyRate: numeric('monthly_rate', { precision: 10, scale: 2, mode: 'number' }),
    overrideReason: text('override_reason'),
    rateEffectiveFrom: date('rate_effective_from', { mode: 'string' }),
    rateEffectiveUntil: date('rate_effective_until', { mode: 'string' }),
    emailAlias: text('email_alias').notNull(),
    mailboxUserId: text('mailbox_user_id'),
    /** When "Provision now" queued the job; cleared by the job's outcome. */
    mailboxRequestedAt: timestamp('mailbox_requested_at', { withTimezone: true }),
    mailboxProvisionedAt: timestamp('mailbox_provisioned_at', { withTimezone: true }),
    mailboxSuspendedAt: timestamp('mailbox_suspended_at', { withTimezone: true }),
    mailboxArchivedAt: timestamp('mailbox_archived_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    unassignedAt: timestamp('unassigned_at', { withTimezone: true }),
  },
  (t) => [
    // Exactly one primary per org, enforced by the database.
    uniqueIndex('osa_one_primary_per_org')
      .on(t.orgId)
      .where(sql`${t.isPrimary} and ${t.unassignedAt} is null`),
    uniqueIndex('osa_org_specialist_active')
      .on(t.orgId, t.specialistId)
      .where(sql`${t.unassignedAt} is null`),
    uniqueIndex('osa_email_alias_active')
      .on(t.emailAlias)
      .where(sql`${t.unassignedAt} is null`),
    index('osa_org_idx').on(t.orgId),
    index('osa_specialist_idx').on(t.specialistId),
  ],
);
export type OsaRow = typeof orgSpecialistAssignments.$inferSelect;

/**
 * Workspace addresses an OSA had before its org's slug changed (spec 2.1 "an alias system exists
 * for rebrands"): each keeps routing inbound mail to the OSA, and no other OSA is ever given it.
 */
export const osaRebrandAliases = pgTable(
  'osa_rebrand_aliases',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    assignmentId: uuid('assignment_id')
      .notNull()
      .references(() => orgSpecialistAssignments.id, { onDelete: 'cascade' }),
    address: text('address').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('osa_rebrand_aliases_address').on(t.address), index('osa_rebrand_aliases_assignment_idx').on(t.assignmentId), index('osa_rebrand_aliases_org_idx').on(t.orgId)],
);

/** Every rate an OSA has had (spec 2.3: rate changes are versioned). */
export const osaRateHistory = pgTable(
  'osa_rate_history',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    assignmentId: uuid('assignment_id')
      .notNull()
      .references(() => orgSpecialistAssignments.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    monthlyRate: numeric('monthly_rate', { precision: 10, scale: 2, mode: 'number' }),
    overrideReason: text('override_reason'),
    rateEffectiveFrom: date('rate_effective_from', { mode: 'string' }),
    rateEffectiveUntil: date('rate_effective_until', { mode: 'string' }),
    changedBy: uuid('changed_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('osa_rate_history_assignment_idx').on(t.assignmentId, t.createdAt), index('osa_rate_history_org_idx').on(t.orgId)],
);

export const HOSTED_MAILBOX_STATUSES = ['active', 'suspended', 'deleted'] as const;
export type HostedMailboxStatus = (typeof HOSTED_MAILBOX_STATUSES)[number];

/**
 * The default mailbox provider's store: hosted mailboxes kept in our own database, so the
 * lifecycle is real end to end without a hosted-workspace account.
 */
export const hostedMailboxes = pgTable(
  'hosted_mailboxes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    address: text('address').notNull(),
    displayName: text('display_name').notNull(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    status: text('status').$type<HostedMailboxStatus>().notNull().default('active'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('hosted_mailboxes_address_live')
      .on(t.address)
      .where(sql`${t.status} <> 'deleted'`),
    index('hosted_mailboxes_org_idx').on(t.orgId),
    oneOf('hosted_mailboxes_status_check', t.status, HOSTED_MAILBOX_STATUSES),
  ],
);
