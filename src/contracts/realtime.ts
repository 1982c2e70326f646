import type { ConversationStatus, MessageDelivery, MessageDto } from './conversations.js';
import type { NotificationDto } from './notifications.js';

/**
 * The real-time surface of spec 6.1: namespace `/notifications`, rooms `user:<userId>`,
 * `org:<orgId>`, `experts`, `conversation:<id>` (and the server-side parts of `experts`: per org,
 * and per Specialist of an org for Specialist-scoped grants). Every event is emitted after the write it
 * describes has committed. The spec leaves the queue and conversation payloads open; these are
 * the shapes the service sends.
 */
export const REALTIME_NAMESPACE = '/notifications';

export type { ConversationStatus };

/** A message as the receiving room may see it (client roles never receive internal notes). */
export type RealtimeMessage = MessageDto;

/** An attention-list item (its status type is the conversation status type, spec 2.5). */
export interface QueueItemPayload {
  id: string;
  conversationId: string;
  orgId: string;
  status: ConversationStatus;
  /** Why the item is on the list: an explicit human request or a genuine failure. */
  reason: 'escalation' | 'agent_failure';
  sla_deadline: string | null;
  deferred_until: string | null;
  assigned_expert_id: string | null;
  updatedAt: string;
}

export interface QueueStatusPayload {
  id: string;
  conversationId: string;
  orgId: string;
  from: ConversationStatus;
  to: ConversationStatus;
  updatedAt: string;
}

export interface ConversationStatusPayload {
  conversationId: string;
  orgId: string;
  from: ConversationStatus;
  to: ConversationStatus;
  resolvedAt: string | null;
  snoozeUntil: string | null;
  /** The user who changed it, or null for the system (a snooze expiring). */
  changedBy: string | null;
  at: string;
}

export interface MessageEventPayload {
  conversationId: string;
  orgId: string;
  message: RealtimeMessage;
}

/** A channel reply's delivery state changed (a held mail sent after its mailbox was restored). */
export interface MessageDeliveryPayload {
  conversationId: string;
  orgId: string;
  messageId: string;
  delivery: MessageDelivery;
}

/** Every server-to-client event and its payload. */
export interface ServerToClientEvents {
  /** Room `user:<recipient>`: the NotificationDto, identical to REST. */
  'notification:new': (notification: NotificationDto) => void;
  /**
   * The Expert-queue events (this one and the next three) reach, of the `experts` room, only the
   * Experts whose grants cover the item's org, or its thread's Specialist, and the superadmins
   * (and the org room's staff).
   * An item joined the attention list.
   */
  expert_queue_item_added: (item: QueueItemPayload) => void;
  /** An item was resolved (sent with the queue_item_status_updated of that change). */
  queue_item_resolved: (payload: QueueStatusPayload) => void;
  /** An item's status changed (every change: into resolved as well). */
  queue_item_status_updated: (payload: QueueStatusPayload) => void;
  /**
   * A non-terminal change, with the whole item: a status change other than into resolved (a
   * snooze sets `deferred_until`, a resurface or a client message clears it), a new deferral
   * time, an assignment, a new request for a human (a new `sla_deadline`).
   */
  queue_item_updated: (item: QueueItemPayload) => void;
  /** Rooms `conversation:<id>` and `org:<orgId>` (and the Experts scoped to the thread's Specialist). */
  conversation_status_changed: (payload: ConversationStatusPayload) => void;
  /** Rooms `org:<orgId>` (and the Experts scoped to the thread's Specialist) and `conversation:<id>`: a Specialist reply was delivered. */
  agent_message_sent: (payload: MessageEventPayload) => void;
  /** Rooms `org:<orgId>` (and the Experts scoped to the thread's Specialist) and `conversation:<id>`: a user message arrived. */
  user_message_received: (payload: MessageEventPayload) => void;
  /** Room `conversation:<id>`: an Expert follow-up or internal note was added. */
  workspace_message_added: (payload: MessageEventPayload) => void;
  /** Room `conversation:<id>`, staff sockets only: a channel reply's `delivery` changed. */
  message_delivery_changed: (payload: MessageDeliveryPayload) => void;
}

export type ServerEventName = keyof ServerToClientEvents;
export type ServerEventPayload<E extends ServerEventName> = Parameters<ServerToClientEvents[E]>[0];

/** Acknowledgement of join_conversation / leave_conversation. */
export type RoomAck = { ok: true } | { ok: false; error: 'forbidden' | 'invalid' };

/** At most this many open sockets per user, over every instance; the next handshake is refused. */
export const MAX_SOCKETS_PER_USER = 20;

/**
 * The `data` of a refused handshake's `connect_error`: no valid session (`unauthorized`), too many
 * handshakes from the address (`rate_limit`, the per-IP throttle of spec 8), or the user already
 * holds MAX_SOCKETS_PER_USER sockets (`too_many_sockets`); a valid session on a namespace other
 * than REALTIME_NAMESPACE (`invalid_namespace`: the default one carries nothing and takes nobody).
 */
export type SocketRefusal =
  { code: 'unauthorized'; reason: string } | { code: 'rate_limit'; retryAfterS: number } | { code: 'too_many_sockets'; limit: number } | { code: 'invalid_namespace'; namespace: string };

export interface ClientToServerEvents {
  join_conversation: (conversationId: string, ack?: (result: RoomAck) => void) => void;
  leave_conversation: (conversationId: string, ack?: (result: RoomAck) => void) => void;
}

export const userRoom = (userId: string) => `user:${userId}`;
export const orgRoom = (orgId: string) => `org:${orgId}`;
export const conversationRoom = (conversationId: string) => `conversation:${conversationId}`;
export const EXPERTS_ROOM = 'experts';
/**
 * Server-side only: the part of `experts` that may see one org's queue (Experts with a grant on
 * it), and the superadmins, who see every org's queue. Queue events go to these, never to
 * `experts` as a whole.
 */
export const expertsOrgRoom = (orgId: string) => `experts:${orgId}`;
export const EXPERTS_ALL_ORGS_ROOM = 'experts:all';
/**
 * Server-side only: the Experts whose grants cover one Specialist of an org but not the whole org
 * (spec 2.4, scope 'specialist'). They join no room of the org itself; every event the org's rooms
 * carry about a thread of that Specialist (queue and conversation events) is sent here as well.
 */
export const expertsSpecialistRoom = (orgId: string, specialistId: string) => `experts:${orgId}:${specialistId}`;
/** The thread an org-level event is about: its org and its Specialist. */
export interface ThreadScope {
  orgId: string;
  specialistId: string;
}
/** The rooms that carry an org's events about one thread: the org room and its Specialist's Experts. */
export const orgThreadRooms = (thread: ThreadScope) => [orgRoom(thread.orgId), expertsSpecialistRoom(thread.orgId, thread.specialistId)];
/** Server-side only: the sockets of one sign-in session (the token's `sid`), closed when it ends. */
export const sessionRoom = (sessionId: string) => `session:${sessionId}`;
/**
 * Every socket is in one of these two (server-side only): an event with a client view and a staff
 * view goes to the same room twice, each view excluding the other audience.
 */
export const AUDIENCE_CLIENT_ROOM = 'audience:client';
export const AUDIENCE_STAFF_ROOM = 'audience:staff';
