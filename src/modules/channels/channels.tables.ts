import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { VERIFICATION_STATUSES, type ChannelName, type VerificationStatus } from '../../contracts/channels.js';
import { oneOf } from '../../platform/db/checks.js';
import { orgs } from '../orgs/orgs.tables.js';

/**
 * An org's integration with one channel (spec 4.6, 5.7): one per org and channel. Secrets are
 * sealed with AES-256-GCM (the key id kept for rotation) and never returned. A new integration
 * is `pending` with a verification code until its org proves control of the source.
 */
export const orgIntegrations = pgTable(
  'org_integrations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    channel: text('channel').$type<ChannelName>().notNull(),
    externalId: text('external_id'),
    config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
    secretsSealed: text('secrets_sealed'),
    /** The id of the key the secrets were sealed with (rotation). */
    secretsKeyId: text('secrets_key_id'),
    enabled: boolean('enabled').notNull().default(true),
    verificationStatus: text('verification_status').$type<VerificationStatus>().notNull().default('pending'),
    /**
     * Shown to the org while pending, null once verified. The service writes its own codes; the
     * default gives rows that predate verification a code of 8 unambiguous characters too.
     */
    verificationCode: text('verification_code').default(sql`translate(upper(substr(md5(random()::text), 1, 8)), '01', 'GH')`),
    verifiedAt: timestamp('verified_at', { withTimezone: true }),
    createdBy: uuid('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('org_integrations_org_channel').on(t.orgId, t.channel), oneOf('org_integrations_verification_status_check', t.verificationStatus, VERIFICATION_STATUSES)],
);
export type IntegrationRow = typeof orgIntegrations.$inferSelect;

export type BindingKind = 'workspace' | 'tenant' | 'sender_number' | 'account_sid' | 'secret_sha256';

/**
 * How an inbound call finds its org (spec 4.8 rule 5): explicit, indexed bindings written with the
 * integration, never a scan of credentials. A chat-a workspace id, an enterprise-chat tenant id, a
 * messaging-a sender number (the platform's pool) or account SID (the org's own account), or the SHA-256 of a messaging-b webhook secret (found first, then
 * compared in constant time). Several orgs may claim one value while pending (claiming reveals
 * nothing about the others); only a verified binding routes, and a value is verified for one
 * integration at most (the partial unique index).
 */
export const channelBindings = pgTable(
  'channel_bindings',
  {
    channel: text('channel').$type<ChannelName>().notNull(),
    kind: text('kind').$type<BindingKind>().notNull(),
    value: text('value').notNull(),
    integrationId: uuid('integration_id')
      .notNull()
      .references(() => orgIntegrations.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    verified: boolean('verified').notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.channel, t.kind, t.value, t.integrationId] }),
    uniqueIndex('channel_bindings_verified')
      .on(t.channel, t.kind, t.value)
      .where(sql`${t.verified}`),
    index('channel_bindings_integration_idx').on(t.integrationId),
    index('channel_bindings_org_idx').on(t.orgId),
  ],
);
export type ChannelBindingRow = typeof channelBindings.$inferSelect;

export const INBOUND_STATUSES = ['queued', 'processing', 'done', 'ignored', 'quarantined', 'failed'] as const;
export type InboundStatus = (typeof INBOUND_STATUSES)[number];

/**
 * The durable inbound queue: every verified webhook call is kept here before it is answered. The
 * vendor's event id is unique per channel, so a redelivery is recognised at the door.
 */
export const inboundEvents = pgTable(
  'inbound_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    channel: text('channel').$type<ChannelName>().notNull(),
    /** `<scope>:<vendor event id>`: unique per channel. */
    eventKey: text('event_key').notNull(),
    status: text('status').$type<InboundStatus>().notNull().default('queued'),
    orgId: uuid('org_id').references(() => orgs.id, { onDelete: 'cascade' }),
    integrationId: uuid('integration_id'),
    /** The verified request: its body (text) and what the worker needs of its headers and URL. */
    body: text('body').notNull(),
    meta: jsonb('meta').$type<Record<string, unknown>>().notNull().default({}),
    /** Why it was quarantined (`unresolved_org`, `quota_exceeded`, `mailbox_suspended`, ...) or ignored. */
    reason: text('reason'),
    conversationId: uuid('conversation_id'),
    messageId: uuid('message_id'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    receivedAt: timestamp('received_at', { withTimezone: true })
      .notNull()
      .default(sql`clock_timestamp()`),
    processedAt: timestamp('processed_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('inbound_events_key').on(t.channel, t.eventKey),
    index('inbound_events_open_idx')
      .on(t.receivedAt)
      .where(sql`${t.status} in ('queued', 'processing')`),
    index('inbound_events_quarantine_idx')
      .on(t.receivedAt)
      .where(sql`${t.status} = 'quarantined'`),
    index('inbound_events_org_idx').on(t.orgId, t.channel, t.receivedAt),
    oneOf('inbound_events_status_check', t.status, INBOUND_STATUSES),
  ],
);
export type InboundEventRow = typeof inboundEvents.$inferSelect;

/**
 * A channel thread bound to a conversation: the thread key is derived per channel (enterprise-chat
 * per conversation type; chat-a per channel thread; email per message-id chain). An engagement is
 * open until `engaged_until` unless completed.
 */
export const channelThreads = pgTable(
  'channel_threads',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    channel: text('channel').$type<ChannelName>().notNull(),
    threadKey: text('thread_key').notNull(),
    conversationId: uuid('conversation_id').notNull(),
    /**
     * Where replies went before targets were kept per message (channel_reply_targets): read only
     * for a conversation that has no per-message target yet.
     */
    replyTarget: jsonb('reply_target').$type<Record<string, unknown>>().notNull().default({}),
    engagedUntil: timestamp('engaged_until', { withTimezone: true }),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('channel_threads_key').on(t.orgId, t.channel, t.threadKey), index('channel_threads_conversation_idx').on(t.conversationId)],
);
export type ChannelThreadRow = typeof channelThreads.$inferSelect;

/**
 * Where the reply to one inbound client message goes (the channel's target fields: chat id and
 * message id, service URL and activity id, addresses and Message-ID...), kept per message before
 * its turn can run. `messageKey` is the client message's idempotency key in its conversation
 * (`<channel>:<vendor message key>`), so the outbox finds the target of the message a Specialist
 * reply answers; a message answering none (an Expert's follow-up) takes the conversation's latest.
 */
export const channelReplyTargets = pgTable(
  'channel_reply_targets',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id').notNull(),
    channel: text('channel').$type<ChannelName>().notNull(),
    messageKey: text('message_key').notNull(),
    target: jsonb('target').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`clock_timestamp()`),
  },
  (t) => [
    uniqueIndex('channel_reply_targets_message').on(t.conversationId, t.messageKey),
    index('channel_reply_targets_latest_idx').on(t.conversationId, t.createdAt),
    index('channel_reply_targets_org_idx').on(t.orgId),
  ],
);
export type ChannelReplyTargetRow = typeof channelReplyTargets.$inferSelect;

export const OUTBOUND_STATUSES = ['pending', 'sending', 'sent', 'failed', 'held'] as const;
export type OutboundStatus = (typeof OUTBOUND_STATUSES)[number];

/**
 * The outbox: one row per (message, channel), so a reply is sent once per channel (spec 6.1.5).
 * `held`: an email reply written while its mailbox was suspended (spec 3.3), sent in the order
 * it was written when the mailbox is restored.
 */
export const outboundMessages = pgTable(
  'outbound_messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id').notNull(),
    messageId: uuid('message_id').notNull(),
    channel: text('channel').$type<ChannelName>().notNull(),
    target: jsonb('target').$type<Record<string, unknown>>().notNull().default({}),
    content: text('content').notNull(),
    status: text('status').$type<OutboundStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true })
      .notNull()
      .default(sql`clock_timestamp()`),
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    lastError: text('last_error'),
    /** The vendor's id of the sent message, when it gives one. */
    externalId: text('external_id'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`clock_timestamp()`),
  },
  (t) => [
    uniqueIndex('outbound_messages_once').on(t.messageId, t.channel),
    index('outbound_messages_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} in ('pending', 'sending')`),
    index('outbound_messages_org_idx').on(t.orgId, t.channel, t.createdAt),
    index('outbound_messages_held_idx')
      .on(t.orgId, t.createdAt)
      .where(sql`${t.status} = 'held'`),
    oneOf('outbound_messages_status_check', t.status, OUTBOUND_STATUSES),
  ],
);
export type OutboundRow = typeof outboundMessages.$inferSelect;
