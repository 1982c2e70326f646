import type { ConversationStatus } from '../../contracts/conversations.js';

/**
 * The conversation state machine of spec 3.1 and the message effects of API-MAP.md, as one pure
 * function. Who may see the thread at all is checked before; this decides what the trigger does.
 */
export type StatusTrigger =
  | { kind: 'client_message' }
  | { kind: 'expert_message' }
  | { kind: 'specialist_reply' }
  | { kind: 'internal_note' }
  | { kind: 'escalate' }
  | { kind: 'resolve' }
  | { kind: 'reopen' }
  | { kind: 'dismiss' }
  | { kind: 'snooze_expired' }
  | { kind: 'set_status'; to: ConversationStatus };

/** Who acts: a client-role user, an internal role, or the service itself. */
export type StatusActor = 'client' | 'expert' | 'account_manager' | 'superadmin' | 'ai_operator' | 'system';

export type TransitionResult = { ok: true; to: ConversationStatus; changed: boolean; stampResolvedAt: boolean } | { ok: false; error: 'forbidden' | 'conflict'; message: string };

const SET_STATUS_ACTORS: readonly StatusActor[] = ['expert', 'account_manager', 'superadmin'];

function to(from: ConversationStatus, next: ConversationStatus, resolvedAt: Date | null): TransitionResult {
  return { ok: true, to: next, changed: from !== next, stampResolvedAt: next === 'resolved' && from !== 'resolved' && resolvedAt === null };
}
const refuse = (error: 'forbidden' | 'conflict', message: string): TransitionResult => ({ ok: false, error, message });

export function transition(from: ConversationStatus, trigger: StatusTrigger, actor: StatusActor, resolvedAt: Date | null = null): TransitionResult {
  switch (trigger.kind) {
    case 'client_message':
      // awaiting_client -> pending; a resolved or snoozed thread reopens to pending (resolvedAt kept).
      return to(from, 'pending', resolvedAt);
    case 'expert_message':
      return to(from, from === 'pending' ? 'awaiting_client' : from, resolvedAt);
    case 'specialist_reply':
    case 'internal_note':
      return to(from, from, resolvedAt);
    case 'escalate':
      // An explicit request for a human needs Expert action: the thread is pending.
      return to(from, 'pending', resolvedAt);
    case 'resolve':
      if (from !== 'pending' && from !== 'awaiting_client') return refuse('conflict', `A ${from} conversation cannot be resolved`);
      return to(from, 'resolved', resolvedAt);
    case 'reopen':
      if (from !== 'resolved') return refuse('conflict', 'Only a resolved conversation can be reopened');
      return to(from, 'pending', resolvedAt);
    case 'dismiss':
      if (actor !== 'client') return refuse('forbidden', 'Only the client can dismiss a conversation');
      if (from !== 'awaiting_client') return refuse('conflict', 'Only a conversation awaiting the client can be dismissed');
      return to(from, 'resolved', resolvedAt);
    case 'snooze_expired':
      if (from !== 'snoozed') return refuse('conflict', 'The conversation is not snoozed');
      return to(from, 'pending', resolvedAt);
    case 'set_status':
      if (!SET_STATUS_ACTORS.includes(actor)) return refuse('forbidden', 'Only Experts, account managers and superadmins can set the status');
      return to(from, trigger.to, resolvedAt);
  }
}
