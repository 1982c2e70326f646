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

export const QueueQuerySchema = z.object({
  status: z.preprocess((v) => (v === 'open' ? 'pending' : v), z.enum(QUEUE_TABS)).default('all'),
  orgId: z.uuid().optional(),
  limit: cursorLimit,
  cursor: z.string().max(200).optional(),
});

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
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type QueueItemDto = z.infer<typeof QueueItemDtoSchema>;

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
