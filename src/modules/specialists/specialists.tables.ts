import { pgTable, jsonb, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

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
    monthlyRateConfig: jsonb('monthly_rate_config').$type<MonthlyRateConfig>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('specialists_slug_key').on(t.slug)],
);
export type SpecialistRow = typeof specialists.$inferSelect;
