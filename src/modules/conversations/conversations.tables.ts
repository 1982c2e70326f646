import { sql, type SQL } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid, type PgColumn } from 'drizzle-orm/pg-core';
import { CONVERSATION_STATUSES, type ConversationChannel, type ConversationStatus, type MessageRole, type QueueItemReason } from '../../contracts/conversations.js';
import { oneOf } from '../../platform/db/checks.js';
import { orgs } from '../orgs/orgs.tables.js';

/**
 * A message's words for full-text search: the expression its GIN index is built on, so a search
 * written with it is answered from the index. Not a stored column: a message row carries no copy of
 * its words, and no statement that reads or returns a message carries them.
 */
export function messageWords(content: PgColumn): SQL {
  return sql`to_tsvector('english', ${content})`;
}

/** Conversation (spec 2.5): a thread between an org and one of its Specialists (OSA). */
export const conversations = pgTable(
  'conversations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    assignmentId: uuid('assignment_id').notNull(),
    specialistId: uuid('specialist_id').notNull(),
    subject: text('subject'),
    status: text('status').$type<ConversationStatus>().notNull().default('pending'),
    channel: text('channel').$type<ConversationChannel>().notNull().default('web'),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    snoozeUntil: timestamp('snooze_until', { withTimezone: true }),
    assignedExpertId: uuid('assigned_expert_id'),
    autoResponded: boolean('auto_responded').notNull().default(false),
    createdBy: uuid('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    lastMessageAt: timestamp('last_message_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('conversations_org_last_idx').on(t.orgId, t.lastMessageAt, t.id),
    index('conversations_snoozed_idx')
      .on(t.snoozeUntil)
      .where(sql`${t.status} = 'snoozed'`),
    // The autonomous handling rate reads the conversations created in a range, platform wide.
    index('conversations_created_idx').on(t.createdAt),
    oneOf('conversations_status_check', t.status, CONVERSATION_STATUSES),
  ],
);
export type ConversationRow = typeof conversations.$inferSelect;
/** What a turn reads of its thread: what never changes once the thread exists. */
export type TurnThread = Pick<ConversationRow, 'id' | 'orgId' | 'assignmentId' | 'specialistId' | 'channel'>;

/** A message of a conversation. A Specialist reply names the client message it answers (one at most). */
export const conversationMessages = pgTable(
  'conversation_messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    role: text('role').$type<MessageRole>().notNull(),
    /** The author: a user id, or the Specialist's id for a Specialist reply; null for system entries. */
    senderId: uuid('sender_id'),
    content: text('content').notNull(),
    isInternal: boolean('is_internal').notNull().default(false),
    /** For a Specialist reply: the client message it answers. Unique: a turn replies once. */
    replyToMessageId: uuid('reply_to_message_id'),
    /** `<sender>:<Idempotency-Key>`: a repeated key returns the first message. */
    idempotencyKey: text('idempotency_key'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`clock_timestamp()`),
    correctedAt: timestamp('corrected_at', { withTimezone: true }),
  },
  (t) => [
    index('conversation_messages_thread_idx').on(t.conversationId, t.createdAt, t.id),
    uniqueIndex('conversation_messages_reply_once').on(t.replyToMessageId),
    uniqueIndex('conversation_messages_idempotency').on(t.conversationId, t.idempotencyKey),
    index('conversation_messages_search_idx').using('gin', messageWords(t.content)),
    index('conversation_messages_org_idx').on(t.orgId, t.createdAt),
  ],
);
export type MessageRow = typeof conversationMessages.$inferSelect;

/** The earlier versions of a corrected message (the original stays in its history). */
export const messageRevisions = pgTable(
  'message_revisions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messageId: uuid('message_id')
      .notNull()
      .references(() => conversationMessages.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    previousContent: text('previous_content').notNull(),
    correctedBy: uuid('corrected_by').notNull(),
    reason: text('reason'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`clock_timestamp()`),
  },
  (t) => [index('message_revisions_message_idx').on(t.messageId, t.createdAt), index('message_revisions_org_idx').on(t.orgId)],
);
export type MessageRevisionRow = typeof messageRevisions.$inferSelect;

export const TURN_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];

/**
 * One agent turn per client message, keyed by that message: the durable record that makes a
 * retried job or a crash mid-turn produce one reply at most (the reply itself is unique too).
 */
export const conversationTurns = pgTable(
  'conversation_turns',
  {
    messageId: uuid('message_id')
      .primaryKey()
      .references(() => conversationMessages.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id').notNull(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    status: text('status').$type<TurnStatus>().notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    /** While running: the claim expires then, and a sweeper may take the turn over. */
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('conversation_turns_open_idx')
      .on(t.status, t.claimedUntil)
      .where(sql`${t.status} in ('queued', 'running')`),
    index('conversation_turns_org_idx').on(t.orgId),
    oneOf('conversation_turns_status_check', t.status, TURN_STATUSES),
  ],
);
export type TurnRow = typeof conversationTurns.$inferSelect;

/**
 * The Expert attention list (spec 4.4): explicit human requests and genuine failures only, one
 * item per conversation; its status is the conversation's status (spec 2.5).
 */
export const queueItems = pgTable(
  'queue_items',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    specialistId: uuid('specialist_id').notNull(),
    // The thread's subject and channel, copied when the item is raised (neither changes once the
    // thread is open): the list's page reads no thread.
    subject: text('subject'),
    channel: text('channel').$type<ConversationChannel>().notNull().default('web'),
    reason: text('reason').$type<QueueItemReason>().notNull(),
    note: text('note'),
    status: text('status').$type<ConversationStatus>().notNull().default('pending'),
    slaDeadline: timestamp('sla_deadline', { withTimezone: true }),
    deferredUntil: timestamp('deferred_until', { withTimezone: true }),
    assignedExpertId: uuid('assigned_expert_id'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`clock_timestamp()`),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`clock_timestamp()`),
  },
  (t) => [
    uniqueIndex('queue_items_conversation_idx').on(t.conversationId),
    index('queue_items_status_updated_idx').on(t.status, t.updatedAt, t.id),
    // The All tab: newest change first, no status filter.
    index('queue_items_updated_idx').on(t.updatedAt, t.id),
    index('queue_items_org_idx').on(t.orgId, t.updatedAt),
    oneOf('queue_items_status_check', t.status, CONVERSATION_STATUSES),
  ],
);
export type QueueItemRow = typeof queueItems.$inferSelect;

/**
 * Files that came with an inbound message: the conversation's artifacts (spec 4.8 rule 4). The row
 * names the bytes (kept once, in the artifacts storage, under `storage_key`); no row holds them.
 */
export const conversationArtifacts = pgTable(
  'conversation_artifacts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id').notNull(),
    messageId: uuid('message_id'),
    name: text('name').notNull(),
    contentType: text('content_type').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    storageKey: text('storage_key').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('conversation_artifacts_conversation_idx').on(t.conversationId, t.createdAt), index('conversation_artifacts_org_idx').on(t.orgId)],
);
export type ArtifactRow = typeof conversationArtifacts.$inferSelect;
