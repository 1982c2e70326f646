import { z } from 'zod';

/** Conversation statuses of spec 3.1. `open` is a legacy input alias of `pending`, never stored. */
export const CONVERSATION_STATUSES = ['pending', 'awaiting_client', 'resolved', 'snoozed'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** Channels of spec 2.5 (and enterprise-chat of spec 4.8). */
export const CONVERSATION_CHANNELS = ['web', 'email', 'messaging-a', 'messaging-b', 'chat-a', 'enterprise-chat'] as const;
export type ConversationChannel = (typeof CONVERSATION_CHANNELS)[number];

export const MESSAGE_ROLES = ['client', 'specialist', 'expert', 'system'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

export const QUEUE_ITEM_REASONS = ['escalation', 'agent_failure'] as const;
export type QueueItemReason = (typeof QUEUE_ITEM_REASONS)[number];

/** A status as a caller may write it: `open` is read as `pending`. */
export const StatusInputSchema = z.preprocess((v) => (v === 'open' ? 'pending' : v), z.enum(CONVERSATION_STATUSES));

const isoDateTime = z.iso.datetime({ offset: true });
const cursorLimit = z.coerce.number().int().min(1).max(200).default(50);

/**
 * A file that came with a message (a channel attachment), kept once in the conversation's
 * artifacts. `url` is a signed link on the service's origin, valid about 15 minutes: it needs no
 * token (an `<img>` can load it), and only views made for a reader of the thread carry one.
 */
export const AttachmentDtoSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  contentType: z.string(),
  size: z.number().int(),
  url: z.string(),
});
export type AttachmentDto = z.infer<typeof AttachmentDtoSchema>;

/** The image types an attachment's link answers with their own type (shown inline, a thumbnail); every other type only downloads. */
export const INLINE_ATTACHMENT_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/**
 * How far a reply sent out through a channel got (staff only): `held` while the Specialist's
 * mailbox is suspended (spec 3.3; sent when it is restored), `queued` until the channel took it,
 * then `sent`, or `failed` after its retries.
 */
export const MESSAGE_DELIVERIES = ['held', 'queued', 'sent', 'failed'] as const;
export type MessageDelivery = (typeof MESSAGE_DELIVERIES)[number];

/** The message wire shape of API-MAP.md "Conversations", with the message's attachments (its resource blocks taken out of `content`). */
export const MessageDtoSchema = z.object({
  id: z.uuid(),
  conversationId: z.uuid(),
  role: z.enum(MESSAGE_ROLES),
  sender_id: z.string().nullable(),
  content: z.string(),
  is_internal: z.boolean(),
  createdAt: z.string(),
  correctedAt: z.string().nullable(),
  attachments: z.array(AttachmentDtoSchema),
  /** Staff views only, on a reply that leaves through a channel (absent for web threads and for client roles). */
  delivery: z.enum(MESSAGE_DELIVERIES).optional(),
});
export type MessageDto = z.infer<typeof MessageDtoSchema>;

export const ConversationDtoSchema = z.object({
  id: z.uuid(),
  orgId: z.uuid(),
  assignmentId: z.uuid(),
  specialist: z.object({ id: z.uuid(), name: z.string(), avatarUrl: z.string().nullable() }),
  subject: z.string().nullable(),
  status: z.enum(CONVERSATION_STATUSES),
  channel: z.enum(CONVERSATION_CHANNELS),
  resolvedAt: z.string().nullable(),
  snoozeUntil: z.string().nullable(),
  assigned_expert_id: z.string().nullable(),
  auto_responded: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastMessageAt: z.string(),
});
export type ConversationDto = z.infer<typeof ConversationDtoSchema>;

export const CreateConversationSchema = z.object({
  orgId: z.uuid().optional(),
  assignmentId: z.uuid().optional(),
  subject: z.string().trim().min(1).max(300).optional(),
  message: z.string().trim().min(1).max(20_000).optional(),
});
export type CreateConversationInput = z.infer<typeof CreateConversationSchema>;

export const ConversationListQuerySchema = z.object({
  status: StatusInputSchema.optional(),
  orgId: z.uuid().optional(),
  limit: cursorLimit,
  cursor: z.string().max(200).optional(),
});
export type ConversationListQuery = z.infer<typeof ConversationListQuerySchema>;

export const ThreadQuerySchema = z.object({
  limit: cursorLimit,
  /** A message id: messages older than it. */
  before: z.uuid().optional(),
});

export const ThreadDtoSchema = z.object({
  conversation: ConversationDtoSchema,
  /** Oldest first: the newest `limit` messages (before `before` when given). */
  messages: z.array(MessageDtoSchema),
  /** Pass as `before` for older messages; null when there are none. */
  nextCursor: z.string().nullable(),
  /**
   * When someone of the thread asked for a human ("Ask for a human", an escalation) and the thread
   * is still on the attention list for it; null otherwise (never asked, resolved since, or listed
   * only for a failure, which a client is not told about).
   */
  humanRequestedAt: z.string().nullable(),
});

export const SendMessageSchema = z.object({
  content: z.string().trim().min(1).max(20_000),
  isInternal: z.boolean().optional(),
});
export type SendMessageInput = z.infer<typeof SendMessageSchema>;

/** The sent message, with the Specialist's reply when the message got one. */
export const SentMessageDtoSchema = MessageDtoSchema.extend({
  reply: MessageDtoSchema.nullable(),
});
export type SentMessageDto = z.infer<typeof SentMessageDtoSchema>;

export const CorrectMessageSchema = z.object({
  content: z.string().trim().min(1).max(20_000),
  reason: z.string().trim().max(1000).optional(),
});

export const EscalateSchema = z.object({ reason: z.string().trim().max(2000).optional() });

export const SetStatusSchema = z
  .object({ status: StatusInputSchema, snoozeUntil: isoDateTime.optional() })
  .refine((v) => v.status !== 'snoozed' || v.snoozeUntil !== undefined, { path: ['snoozeUntil'], message: 'Required when the status is snoozed' });
export type SetStatusInput = z.infer<typeof SetStatusSchema>;

export const AssignExpertSchema = z.object({ expertId: z.uuid().nullable() });

export const SearchQuerySchema = z.object({
  q: z.string().trim().min(1).max(200),
  orgId: z.uuid().optional(),
  limit: cursorLimit,
  cursor: z.string().max(200).optional(),
});

export const SearchHitSchema = z.object({
  conversation: ConversationDtoSchema,
  /** The visible messages that match, newest first (a few). */
  matches: z.array(MessageDtoSchema),
});

export const QUEUE_TABS = ['all', 'pending', 'awaiting_client', 'resolved', 'snoozed'] as const;
export type QueueTab = (typeof QUEUE_TABS)[number];

/** Whose items the attention list shows: the caller's, nobody's, or one Expert's (an id). */
export const QueueAssigneeSchema = z.union([z.enum(['me', 'unassigned']), z.uuid()]);
export type QueueAssignee = z.infer<typeof QueueAssigneeSchema>;

export const QueueQuerySchema = z.object({
  status: z.preprocess((v) => (v === 'open' ? 'pending' : v), z.enum(QUEUE_TABS)).default('all'),
  orgId: z.uuid().optional(),
  specialistId: z.uuid().optional(),
  channel: z.enum(CONVERSATION_CHANNELS).optional(),
  assignee: QueueAssigneeSchema.optional(),
  /** The item of one conversation (the thread page's details). */
  conversationId: z.uuid().optional(),
  /** Full-text search of the thread's messages (the search of spec 4.4); internal notes included. */
  q: z.string().trim().min(1).max(200).optional(),
  limit: cursorLimit,
  cursor: z.string().max(200).optional(),
});
export type QueueQuery = z.infer<typeof QueueQuerySchema>;

/** A matching message of a searched item: its text around the matches, `match` parts being the words found. */
export const QueueMatchSchema = z.object({
  messageId: z.uuid(),
  is_internal: z.boolean(),
  createdAt: z.string(),
  excerpt: z.array(z.object({ text: z.string(), match: z.boolean() })),
});
export type QueueMatch = z.infer<typeof QueueMatchSchema>;

export const QueueItemDtoSchema = z.object({
  id: z.uuid(),
  conversationId: z.uuid(),
  orgId: z.uuid(),
  orgName: z.string(),
  specialist: z.object({ id: z.uuid(), name: z.string() }),
  subject: z.string().nullable(),
  status: z.enum(CONVERSATION_STATUSES),
  reason: z.enum(QUEUE_ITEM_REASONS),
  note: z.string().nullable(),
  sla_deadline: z.string().nullable(),
  deferred_until: z.string().nullable(),
  assigned_expert_id: z.string().nullable(),
  channel: z.enum(CONVERSATION_CHANNELS),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** With `q`: the newest matching messages (a few). */
  matches: z.array(QueueMatchSchema).optional(),
});
export type QueueItemDto = z.infer<typeof QueueItemDtoSchema>;

const NamedSchema = z.object({ id: z.uuid(), name: z.string() });

/** What the attention list can be filtered by, for the caller: the orgs and Specialists on it, and the Experts. */
export const QueueFiltersDtoSchema = z.object({
  orgs: z.array(NamedSchema),
  specialists: z.array(NamedSchema.extend({ orgIds: z.array(z.uuid()) })),
  experts: z.array(NamedSchema),
});
export type QueueFiltersDto = z.infer<typeof QueueFiltersDtoSchema>;

export const QuotaDtoSchema = z.object({
  orgId: z.uuid(),
  limit: z.number().int(),
  used: z.number().int(),
  remaining: z.number().int(),
  windowSeconds: z.number().int(),
  resetAt: z.string().nullable(),
});

/** The server-sent events of `POST /conversations/:id/messages/stream`, in order. */
export type StreamEvent =
  | { event: 'message'; data: MessageDto }
  | { event: 'delta'; data: { text: string } }
  /** An attempt failed after some deltas: discard them, another attempt follows. */
  | { event: 'retry'; data: Record<string, never> }
  | { event: 'reply'; data: MessageDto }
  | { event: 'error'; data: { code: string; message: string } }
  | { event: 'done'; data: Record<string, never> };

/**
 * The autonomous handling rate (spec 2.5 `auto_responded`; docs/conversations.md): of the
 * conversations created in a range, the share the Specialist answered with no Expert reply, no
 * correction of a reply and no attention-list item. `rate` is `autonomous / conversations`, null
 * when there are none.
 */
export const HandlingRateSchema = z.object({
  conversations: z.number().int(),
  /** The Specialist answered at least once (`auto_responded`). */
  autoResponded: z.number().int(),
  /** Answered by the Specialist and never needed an Expert. */
  autonomous: z.number().int(),
  rate: z.number().min(0).max(1).nullable(),
});
export type HandlingRate = z.infer<typeof HandlingRateSchema>;

/** The rate of one org (the ops org view): its total and per Specialist (catalog Specialist). */
export const OrgAutonomousHandlingSchema = z.object({
  total: HandlingRateSchema,
  bySpecialist: z.array(HandlingRateSchema.extend({ specialistId: z.uuid(), name: z.string() })),
});
export type OrgAutonomousHandling = z.infer<typeof OrgAutonomousHandlingSchema>;

/** The rate platform wide, per org and per Specialist (an OSA folded into its catalog Specialist). */
export const AutonomousHandlingSchema = OrgAutonomousHandlingSchema.extend({
  byOrg: z.array(HandlingRateSchema.extend({ orgId: z.uuid(), name: z.string() })),
});
export type AutonomousHandling = z.infer<typeof AutonomousHandlingSchema>;
