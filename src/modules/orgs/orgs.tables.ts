import { sql } from 'drizzle-orm';
import { boolean, date, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { ORG_STATUSES, type OrgStatus } from '../../contracts/orgs.js';
import { oneOf } from '../../platform/db/checks.js';
import { users } from '../users/users.tables.js';

export { ORG_STATUSES, type OrgStatus };

/** Organizations: every field of spec 2.1 and its status. */
export const orgs = pgTable(
  'orgs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    legalName: text('legal_name').notNull(),
    slug: text('slug').notNull(),
    industry: text('industry').notNull(),
    corporateDomains: text('corporate_domains').array().notNull(),
    adminEmail: text('admin_email').notNull(),
    website: text('website').notNull(),
    timezone: text('timezone').notNull(),
    /** The org's current logo (org_logos.id), or null: the DTO's logoUrl is made from it. */
    logoId: uuid('logo_id'),
    billingEmail: text('billing_email'),
    companySize: text('company_size'),
    trialEndDate: date('trial_end_date', { mode: 'string' }),
    trialMode: text('trial_mode').$type<'default' | 'none'>().notNull().default('default'),
    trialStartedAt: timestamp('trial_started_at', { withTimezone: true }),
    /** sendOrgInvite's optional startDate: when billing may start. */
    startDate: date('start_date', { mode: 'string' }),
    status: text('status').$type<OrgStatus>().notNull().default('pending_am_setup'),
    /** When the org first became active (Phase 2 confirmation or finish without invite): billing may start. */
    activatedAt: timestamp('activated_at', { withTimezone: true }),
    /** An explicit per-org stop on mailbox provisioning (spec 3.3: "Provision now" honours it). */
    mailboxProvisioningDisabled: boolean('mailbox_provisioning_disabled').notNull().default(false),
    assignedAmId: uuid('assigned_am_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // An org that is not deactivated holds its slug (API-MAP.md "AM wizard").
    uniqueIndex('orgs_slug_held_key')
      .on(t.slug)
      .where(sql`${t.status} <> 'deactivated'`),
    index('orgs_status_idx').on(t.status),
    index('orgs_assigned_am_idx').on(t.assignedAmId),
    oneOf('orgs_status_check', t.status, ORG_STATUSES),
  ],
);
export type OrgRow = typeof orgs.$inferSelect;
export type NewOrgRow = typeof orgs.$inferInsert;

/**
 * Slugs held forever: reserved when an org is confirmed (Phase 2) or finished without invite,
 * and rebrand aliases. Never recycled, even after the org is deactivated.
 */
export const slugReservations = pgTable(
  'slug_reservations',
  {
    slug: text('slug').primaryKey(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'restrict' }),
    kind: text('kind').$type<'reserved' | 'alias'>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('slug_reservations_org_idx').on(t.orgId)],
);

/**
 * An org's uploaded logo (spec 2.1 "logo: image"): one per org. The bytes are in the logo storage
 * under `storage_key` (a new key per upload, so a replaced logo's URL never serves the new bytes
 * from a cache); the row says what they are, as sniffed from the bytes on upload.
 */
export const orgLogos = pgTable('org_logos', {
  id: uuid('id').primaryKey().defaultRandom(),
  orgId: uuid('org_id')
    .notNull()
    .unique('org_logos_org_key')
    .references(() => orgs.id, { onDelete: 'cascade' }),
  contentType: text('content_type').notNull(),
  size: integer('size').notNull(),
  width: integer('width').notNull(),
  height: integer('height').notNull(),
  storageKey: text('storage_key').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
export type OrgLogoRow = typeof orgLogos.$inferSelect;
