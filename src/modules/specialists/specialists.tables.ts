import { index, jsonb, numeric, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

export interface MonthlyRateConfig {
  base_rate: number;
  currency: string;
}

/** The Specialist catalog (spec 2.2). It carries no email column: the workspace address lives on the OSA. */
export const specialists = pgTable(
  'specialists',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    avatarUrl: text('avatar_url'),
    routingEmail: text('routing_email'),
    skillTags: text('skill_tags').array().notNull().default([]),
    persona: text('persona').notNull().default(''),
    /** The catalog monthly rate; null: the Specialist has none (rate resolution falls through to null, spec 2.3). */
    monthlyRateConfig: jsonb('monthly_rate_config').$type<MonthlyRateConfig>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('specialists_slug_key').on(t.slug)],
);
export type SpecialistRow = typeof specialists.$inferSelect;

/** Every catalog rate a Specialist has had (null: none from then on): billing prorates a mid-month catalog change by day. */
export const specialistRateHistory = pgTable(
  'specialist_rate_history',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    specialistId: uuid('specialist_id')
      .notNull()
      .references(() => specialists.id, { onDelete: 'cascade' }),
    baseRate: numeric('base_rate', { precision: 10, scale: 2, mode: 'number' }),
    currency: text('currency'),
    changedBy: uuid('changed_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('specialist_rate_history_specialist_idx').on(t.specialistId, t.createdAt)],
);
