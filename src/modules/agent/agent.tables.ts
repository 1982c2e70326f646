import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { orgs } from '../orgs/orgs.tables.js';

/**
 * The LLM cost ledger of spec 2.9: one row per model call. Cost is computed server-side from the
 * tokens and the price table, in micro-USD. All cost reads come from here; it is never invoiced.
 */
export const llmRuns = pgTable(
  'llm_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    /** The OSA the call was made for (spec 2.9 groups by `osa_id`). */
    osaId: uuid('osa_id'),
    conversationId: uuid('conversation_id'),
    /** The inbound message whose turn made the call. */
    messageId: uuid('message_id'),
    /** `chat-hermes` for chat turns. */
    purpose: text('purpose').notNull(),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    costMicroUsd: bigint('cost_micro_usd', { mode: 'number' }).notNull().default(0),
    latencyMs: integer('latency_ms').notNull().default(0),
    outcome: text('outcome').$type<'ok' | 'error'>().notNull(),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`clock_timestamp()`),
  },
  (t) => [index('llm_runs_org_created_idx').on(t.orgId, t.createdAt), index('llm_runs_osa_created_idx').on(t.osaId, t.createdAt), index('llm_runs_created_idx').on(t.createdAt)],
);
export type LlmRunRow = typeof llmRuns.$inferSelect;

/** Which agent tools an org permits (`PUT /orgs/:orgId/tool-permissions/:toolName`). */
export const orgToolPermissions = pgTable(
  'org_tool_permissions',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    toolName: text('tool_name').notNull(),
    enabled: boolean('enabled').notNull(),
    updatedBy: uuid('updated_by'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.toolName] })],
);
export type OrgToolPermissionRow = typeof orgToolPermissions.$inferSelect;
