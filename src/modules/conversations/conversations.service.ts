import { Injectable, type OnModuleInit } from '@nestjs/common';
import type {
  ConversationChannel,
  ConversationDto,
  ConversationListQuery,
  ConversationStatus,
  CreateConversationInput,
  MessageDto,
  SendMessageInput,
  SentMessageDto,
  SetStatusInput,
} from '../../contracts/conversations.js';
import type { Principal } from '../../platform/auth/principal.js';
import { memberOrgId } from '../../platform/auth/org-scope.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { Clock } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { EventBus } from '../../platform/events/event-bus.js';
import { AppError } from '../../platform/errors/app-error.js';
import { jobScope, requestScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { decodeCursor, pageOf } from '../../platform/http/pagination.js';
import { logger } from '../../platform/observability/logger.js';
import { SchedulerService } from '../../platform/queue/scheduler.service.js';
import { UsersService } from '../users/index.js';
import { AssignmentsService, SpecialistsService } from '../specialists/index.js';
import { ArtifactLinks } from './artifact-links.js';
import { ConversationAccess } from './conversation-access.service.js';
import { isClientViewer, statusActor, threadScope } from './conversations.access.js';
import { toConversationDto, toMessageDto, type SpecialistCard, type Viewer } from './conversations.dto.js';
import { ConversationEvents } from './conversations.events.js';
import { ConversationsRepository, type HistoryEntry } from './conversations.repository.js';
import { transition, type StatusTrigger } from './conversations.status.js';
import type { ConversationRow, MessageRow, TurnThread } from './conversations.tables.js';
import { ExpertQueueService } from './expert-queue.service.js';
import { MessageDeliveries } from './message-deliveries.js';
import { MessageQuotaService } from './message-quota.service.js';
import { channelMessageKey } from './outbound.port.js';
import { TurnsService, type TurnObserver } from './turns.service.js';

const SWEEP_INTERVAL_MS = 15_000;
const MATCHES_PER_HIT = 3;

export interface SendOptions {
  idempotencyKey?: string;
  /** Streaming: called once the sent message is stored, then with the turn's deltas. */
  onStored?: (message: MessageDto) => void;
  observer?: TurnObserver;
}

/**
 * Conversations (spec 2.5, 3.1, 4.4): threads between an org and its Specialists, the status
 * lifecycle, Expert follow-ups and notes, corrections, search. Every read and write is scoped by
 * what the caller reaches (ConversationAccess).
 */
@Injectable()
export class ConversationsService implements OnModuleInit {
  constructor(
    private readonly repo: ConversationsRepository,
    private readonly access: ConversationAccess,
    private readonly turns: TurnsService,
    private readonly queue: ExpertQueueService,
    private readonly quota: MessageQuotaService,
    private readonly events: ConversationEvents,
    private readonly assignments: AssignmentsService,
    private readonly specialists: SpecialistsService,
    private readonly users: UsersService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    private readonly clock: Clock,
    private readonly scheduler: SchedulerService,
    private readonly links: ArtifactLinks,
    private readonly deliveries: MessageDeliveries,
    private readonly bus: EventBus,
  ) {}

  onModuleInit(): void {
    this.scheduler.every('conversations.resurface-snoozed', SWEEP_INTERVAL_MS, async () => {
      await this.resurfaceSnoozed();
    });
    this.scheduler.every('conversations.stranded-turns', this.turns.strandedSweepMs, async () => {
      await this.turns.runStranded();
    });
  }

  // Reading

  async list(principal: Principal, query: ConversationListQuery) {
    const reach = await this.access.reachOf(principal);
    const orgId = await this.access.namedOrg(principal, query.orgId);
    const rows = await this.repo.list(reach, { orgId, status: query.status }, { limit: query.limit, after: decodeCursor(query.cursor) });
    const cards = await this.cards(rows.map((r) => r.specialistId));
    const viewer = viewerOf(principal);
    return pageOf(
      rows,
      query.limit,
      (r) => ({ at: r.lastMessageAt, id: r.id }),
      (r) => toConversationDto(r, cards.get(r.specialistId), viewer),
    );
  }

  async thread(principal: Principal, id: string, query: { limit: number; before?: string }) {
    const conversation = await this.access.thread(principal, id);
    const scope = threadScope(conversation);
    const viewer = viewerOf(principal);
    let before: MessageRow | undefined;
    if (query.before) {
      before = await this.repo.findMessage(scope, id, query.before);
      if (!before || (viewer === 'client' && before.isInternal)) throw new AppError('validation_failed', 'Invalid query', { details: [{ field: 'query.before', message: 'Unknown message' }] });
    }
    const rows = await this.repo.thread(scope, id, { includeInternal: viewer === 'staff', limit: query.limit, before });
    const more = rows.length > query.limit;
    const page = rows.slice(0, query.limit).reverse();
    const deliveries = await this.deliveries.of(viewer, [conversation], page, threadScope);
    const item = await this.repo.findQueueItem(scope, id);
    return {
      conversation: await this.dto(conversation, viewer),
      messages: page.map((m) => toMessageDto(m, viewer, conversation.specialistId, this.links, deliveries.get(m.id))),
      nextCursor: more ? page[0]!.id : null,
      humanRequestedAt: item?.reason === 'escalation' && item.status !== 'resolved' ? item.updatedAt.toISOString() : null,
    };
  }

  async search(principal: Principal, query: { q: string; orgId?: string; limit: number; cursor?: string }) {
    const reach = await this.access.reachOf(principal);
    const viewer = viewerOf(principal);
    const orgId = await this.access.namedOrg(principal, query.orgId);
    const filter = { q: query.q, orgId, includeInternal: viewer === 'staff' };
    const hits = await this.repo.search(reach, filter, { limit: query.limit, after: decodeCursor(query.cursor) });
    const page = hits.slice(0, query.limit);
    const matches = await this.repo.searchMatches(
      page.map((h) => threadScope(h.conversation)),
      page.map((h) => h.conversation.id),
      filter,
    );
    const cards = await this.cards(page.map((h) => h.conversation.specialistId));
    const deliveries = await this.deliveries.of(
      viewer,
      page.map((h) => h.conversation),
      matches,
      threadScope,
    );
    return pageOf(
      hits,
      query.limit,
      (h) => ({ at: h.hitAt, id: h.conversation.id }),
      (h) => ({
        conversation: toConversationDto(h.conversation, cards.get(h.conversation.specialistId), viewer),
        matches: matches
          .filter((m) => m.conversationId === h.conversation.id)
          .slice(0, MATCHES_PER_HIT)
          .map((m) => toMessageDto(m, viewer, h.conversation.specialistId, this.links, deliveries.get(m.id))),
      }),
    );
  }

  // Writing

  async create(principal: Principal, input: CreateConversationInput): Promise<ConversationDto & { messages: MessageDto[] }> {
    const orgId = isClientViewer(principal) ? memberOrgId(principal, input.orgId) : input.orgId;
    if (!orgId) throw new AppError('validation_failed', 'Invalid body', { details: [{ field: 'orgId', message: 'Required for internal roles' }] });
    if (!(await this.access.reachesOrg(principal, orgId))) throw AppError.notFound('Organization');
    const scope = requestScope(orgId, 'reach');
    const assignment = input.assignmentId ? await this.assignments.get(scope, input.assignmentId) : (await this.assignments.list(scope)).find((a) => a.isPrimary);
    if (!assignment) throw AppError.conflict('No Specialist is assigned to this org yet');
    if (!(await this.access.reachesOrg(principal, orgId, assignment.specialistId))) throw AppError.notFound('Assignment');
    if (input.message) await this.quota.consume(orgId);
    const conversation = await this.repo.insertConversation(scope, {
      assignmentId: assignment.id,
      specialistId: assignment.specialistId,
      subject: input.subject ?? null,
      createdBy: principal.userId,
    });
    const messages: MessageDto[] = [];
    if (input.message) {
      const sent = await this.store(principal, threadScope(conversation), conversation.id, { content: input.message }, {}, conversation.status);
      messages.push(...[sent.message, sent.reply].filter((m): m is MessageDto => m !== null));
    }
    const viewer = viewerOf(principal);
    return { ...(await this.dto(await this.access.thread(principal, conversation.id), viewer)), messages };
  }

  /**
   * Sends a message: from a client, the Specialist answers it once (the turn runs before this
   * returns); from staff, a follow-up shown to the client as the Specialist, or an internal note.
   * A repeated Idempotency-Key returns the first result and creates nothing.
   */
  async send(principal: Principal, id: string, input: SendMessageInput, options: SendOptions = {}): Promise<SentMessageDto> {
    // The thread's org and Specialist decide the caller's reach and the scope; its row is not read (the statement that stores the message returns it).
    const scope = threadScope(await this.access.threadFacts(principal, id));
    const key = options.idempotencyKey ? `${principal.userId}:${options.idempotencyKey}` : undefined;
    if (key) {
      const first = await this.repo.findByIdempotencyKey(scope, id, key);
      if (first) return this.sentDto(principal, await this.access.thread(principal, id), first);
    }
    await this.quota.consume(scope.orgId);
    const sent = await this.store(principal, scope, id, input, { key, ...options });
    return { ...sent.message, reply: sent.reply };
  }

  /**
   * `seen`: the thread's status as the caller last read it, if it did. A client message to a thread
   * seen pending, or not read at all, is first tried as the one statement that stores it while the
   * thread is pending.
   */
  private async store(
    principal: Principal,
    scope: OrgScope,
    id: string,
    input: SendMessageInput,
    options: SendOptions & { key?: string },
    seen?: ConversationStatus,
  ): Promise<{ message: MessageDto; reply: MessageDto | null }> {
    const viewer = viewerOf(principal);
    if (viewer === 'client' && input.isInternal) throw AppError.forbidden('Clients cannot write internal notes');
    const role = viewer === 'client' ? 'client' : 'expert';
    const trigger: StatusTrigger = role === 'client' ? { kind: 'client_message' } : input.isInternal ? { kind: 'internal_note' } : { kind: 'expert_message' };
    const pending =
      role === 'client' ? await this.storeWhilePending(scope, { conversationId: id, senderId: principal.userId, content: input.content, idempotencyKey: options.key ?? null }, seen) : undefined;
    const stored =
      pending ??
      (await this.dbService.transaction(async () => {
        const conversation = await this.lockThread(scope, id);
        const message = await this.repo.insertMessage(scope, {
          conversationId: id,
          role,
          senderId: principal.userId,
          content: input.content,
          isInternal: role === 'expert' && input.isInternal === true,
          idempotencyKey: options.key ?? null,
        });
        if (!message) return undefined; // the same key, sent concurrently: the first one stands
        if (role === 'client') await this.repo.insertTurn(scope, { messageId: message.id, conversationId: id }, this.turns.firstClaimMs);
        const updated = await this.applyTransition(scope, conversation, trigger, principal, { lastMessageAt: message.createdAt });
        // An Expert's visible follow-up reaches a channel's client through that channel.
        if (role === 'expert' && !message.isInternal) {
          await this.turns.sendOut(updated, message);
          // The client hears of it in the app too, as their Specialist's reply (spec 1, 6.2).
          await this.bus.emitDurable('conversations.specialist_replied', { orgId: updated.orgId, conversationId: updated.id, messageId: message.id });
        }
        this.dbService.afterCommit(() => this.events.message(role === 'client' ? 'user_message_received' : 'workspace_message_added', updated, message));
        return { conversation: updated, message };
      }));
    if (!stored) {
      const first = await this.repo.findByIdempotencyKey(scope, id, options.key!);
      const dto = await this.sentDto(principal, await this.access.thread(principal, id), first!);
      return { message: dto, reply: dto.reply };
    }
    const delivery = (await this.deliveries.of(viewer, [stored.conversation], [stored.message], threadScope)).get(stored.message.id);
    const message = toMessageDto(stored.message, viewer, stored.conversation.specialistId, this.links, delivery);
    options.onStored?.(message);
    if (role !== 'client') return { message, reply: null };
    // The turn was written claimed by this request, which runs it now.
    const gateOpen = principal.openOrgIds?.has(stored.conversation.orgId) === true;
    const reply = await this.turns.run(stored.conversation, stored.message, options.observer, { claimed: true, gateOpen, history: pending?.history });
    return { message, reply: reply ? toMessageDto(reply, viewer, stored.conversation.specialistId, this.links) : null };
  }

  // Channels (called by the channels module's inbound worker)

  /**
   * Opens the conversation of a new channel thread, with the given id, inside the caller's
   * transaction (the caller binds the thread to it in the same one). With the primary Specialist,
   * or the assignment the channel addressed (an email alias).
   */
  async openForChannel(input: { id: string; orgId: string; channel: ConversationChannel; assignmentId?: string; subject: string | null }): Promise<ConversationRow> {
    const scope = jobScope(input);
    // The inbound worker has read the org already: no second read only to learn that it exists.
    const assignment = input.assignmentId ? await this.assignments.get(scope, input.assignmentId) : await this.assignments.primary(scope);
    if (!assignment) throw AppError.conflict('No Specialist is assigned to this org yet');
    return this.repo.insertConversation(scope, {
      id: input.id,
      assignmentId: assignment.id,
      specialistId: assignment.specialistId,
      subject: input.subject,
      channel: input.channel,
    });
  }

  /**
   * A client message that arrived through a channel: counted against the org quota (429 when
   * over), stored once per channel message key, answered once. A redelivery returns the first
   * message and creates nothing.
   */
  async receiveFromChannel(input: {
    conversationId: string;
    orgId: string;
    channel: ConversationChannel;
    messageKey: string;
    content: string;
  }): Promise<{ conversation: TurnThread; message: MessageRow; reply: MessageRow | null; duplicate: boolean }> {
    const key = channelMessageKey(input.channel, input.messageKey);
    // The inbound job's org: the one its channel thread is bound to.
    const scope = jobScope(input);
    const [current] = await this.repo.conversationsByIds([scope], [input.conversationId]);
    if (!current || current.orgId !== input.orgId) throw AppError.notFound('Conversation');
    const first = await this.repo.findByIdempotencyKey(scope, current.id, key);
    if (first) return { conversation: current, message: first, reply: (await this.repo.findReply(scope, current.id, first.id)) ?? null, duplicate: true };
    await this.quota.consume(input.orgId);
    const pending = await this.storeWhilePending(scope, { conversationId: current.id, senderId: null, content: input.content, idempotencyKey: key }, current.status);
    const stored =
      pending ??
      (await this.dbService.transaction(async () => {
        const conversation = await this.lockThread(scope, current.id);
        const message = await this.repo.insertMessage(scope, { conversationId: current.id, role: 'client', senderId: null, content: input.content, idempotencyKey: key });
        if (!message) return undefined;
        await this.repo.insertTurn(scope, { messageId: message.id, conversationId: current.id }, this.turns.firstClaimMs);
        const updated = await this.applyTransition(scope, conversation, { kind: 'client_message' }, null, { lastMessageAt: message.createdAt });
        this.dbService.afterCommit(() => this.events.message('user_message_received', updated, message));
        return { conversation: updated, message };
      }));
    if (!stored) {
      const message = (await this.repo.findByIdempotencyKey(scope, current.id, key))!;
      return { conversation: current, message, reply: (await this.repo.findReply(scope, current.id, message.id)) ?? null, duplicate: true };
    }
    const reply = await this.turns.run(stored.conversation, stored.message, {}, { claimed: true, history: pending?.history });
    return { ...stored, reply, duplicate: false };
  }

  /**
   * A reply that could not be delivered through its channel after every attempt (spec 8): an
   * activity entry in the thread says so (staff only, like every activity entry: the client never
   * saw the reply, so the client view is unchanged) and the conversation goes on the Expert
   * attention list as a genuine failure (spec 4.4, `agent_failure`). Once per delivery
   * (`deliveryKey`); inside the caller's transaction when there is one.
   */
  async recordDeliveryFailure(input: { orgId: string; conversationId: string; deliveryKey: string; channel: string; attempts: number; error: string }): Promise<void> {
    const scope = jobScope(input);
    await this.dbService.transaction(async () => {
      const conversation = await this.repo.lock(scope, input.conversationId);
      // A conversation removed since (its org deleted) has nobody left to tell.
      if (!conversation || conversation.orgId !== input.orgId) return;
      const what = `The reply could not be delivered through ${input.channel} after ${input.attempts} attempts`;
      const entry = await this.repo.insertMessage(scope, {
        conversationId: conversation.id,
        role: 'system',
        senderId: null,
        content: `Delivery failed: ${what} (last error: ${input.error.slice(0, 500)}). The client has not received it.`,
        isInternal: true,
        idempotencyKey: `delivery-failed:${input.deliveryKey}`,
      });
      if (!entry) return;
      await this.queue.raise(scope, conversation, 'agent_failure', `${what}: ${input.error.slice(0, 500)}`, this.clock.now());
      this.dbService.afterCommit(() => this.events.message('workspace_message_added', conversation, entry));
    });
  }

  /** resolve, reopen, dismiss and set status (spec 3.1). */
  async changeStatus(principal: Principal, id: string, trigger: StatusTrigger, input: Partial<SetStatusInput> = {}): Promise<ConversationDto> {
    const scope = threadScope(await this.access.thread(principal, id));
    let snoozeUntil: Date | undefined;
    if (trigger.kind === 'set_status' && trigger.to === 'snoozed') {
      snoozeUntil = new Date(input.snoozeUntil!);
      if (snoozeUntil.getTime() <= this.clock.now().getTime()) {
        throw new AppError('validation_failed', 'Invalid body', { details: [{ field: 'snoozeUntil', message: 'Must be in the future' }] });
      }
    }
    const updated = await this.dbService.transaction(async () => {
      const conversation = await this.lockThread(scope, id);
      return this.applyTransition(scope, conversation, trigger, principal, snoozeUntil ? { snoozeUntil } : {});
    });
    return this.dto(updated, viewerOf(principal));
  }

  /** An explicit request for a human: the thread goes on the attention list. */
  async escalate(principal: Principal, id: string, reason: string | undefined): Promise<ConversationDto> {
    const scope = threadScope(await this.access.thread(principal, id));
    const updated = await this.dbService.transaction(async () => {
      const conversation = await this.lockThread(scope, id);
      const after = await this.applyTransition(scope, conversation, { kind: 'escalate' }, principal, {}, { mirrorQueue: false });
      await this.queue.raise(scope, after, 'escalation', reason ?? null, this.clock.now());
      return after;
    });
    await this.audit.record({
      action: 'conversation.escalated',
      userId: principal.userId,
      resourceId: id,
      orgId: updated.orgId,
      impersonatorId: principal.impersonatorId,
      meta: { reason: reason ?? null },
    });
    return this.dto(updated, viewerOf(principal));
  }

  /** Assigns the thread (and its attention-list item) to an Expert who covers it, or clears it. */
  async assign(principal: Principal, id: string, expertId: string | null): Promise<ConversationDto> {
    requireStaffActor(principal);
    const current = await this.access.thread(principal, id);
    if (expertId) {
      const expert = await this.users.findById(expertId);
      if (!expert || expert.platformRole !== 'expert' || expert.status !== 'active') throw AppError.notFound('Expert');
      const covering = await this.queue.coveringExperts(current);
      if (!covering.includes(expertId)) throw AppError.conflict('This Expert does not cover the conversation');
    }
    const scope = threadScope(current);
    const updated = await this.dbService.transaction(async () => {
      const conversation = await this.lockThread(scope, id);
      const after = await this.repo.update(scope, id, { assignedExpertId: expertId });
      await this.queue.mirror(scope, after, conversation.status);
      return after;
    });
    await this.audit.record({ action: 'conversation.assigned', userId: principal.userId, resourceId: id, orgId: updated.orgId, impersonatorId: principal.impersonatorId, meta: { expertId } });
    return this.dto(updated, viewerOf(principal));
  }

  /** An Expert corrects a delivered reply; the original stays in the message's history (audited). */
  async correct(principal: Principal, id: string, messageId: string, input: { content: string; reason?: string }): Promise<MessageDto> {
    requireStaffActor(principal);
    const conversation = await this.access.thread(principal, id);
    const scope = threadScope(conversation);
    const result = await this.dbService.transaction(async () => {
      await this.lockThread(scope, id);
      const message = await this.repo.findMessage(scope, id, messageId);
      if (!message) throw AppError.notFound('Message');
      if (message.role !== 'specialist' && message.role !== 'expert') throw AppError.conflict('Only a Specialist reply or an Expert follow-up can be corrected');
      await this.repo.insertRevision(scope, { messageId, previousContent: message.content, correctedBy: principal.userId, reason: input.reason ?? null });
      const corrected = await this.repo.updateMessage(scope, messageId, { content: input.content, correctedAt: this.clock.now() });
      this.dbService.afterCommit(() => this.events.message('workspace_message_added', conversation, corrected));
      return { before: message, after: corrected };
    });
    await this.audit.record({
      action: 'conversation.message.corrected',
      userId: principal.userId,
      resourceId: messageId,
      orgId: conversation.orgId,
      impersonatorId: principal.impersonatorId,
      meta: { conversationId: id, reason: input.reason ?? null, from: result.before.content, to: result.after.content },
    });
    const delivery = (await this.deliveries.of('staff', [conversation], [result.after], threadScope)).get(messageId);
    return toMessageDto(result.after, 'staff', conversation.specialistId, this.links, delivery);
  }

  async revisions(principal: Principal, id: string, messageId: string) {
    requireStaffActor(principal);
    const scope = threadScope(await this.access.thread(principal, id));
    if (!(await this.repo.findMessage(scope, id, messageId))) throw AppError.notFound('Message');
    return (await this.repo.revisions(scope, messageId)).map((r) => ({
      id: r.id,
      previousContent: r.previousContent,
      correctedBy: r.correctedBy,
      reason: r.reason,
      createdAt: r.createdAt.toISOString(),
    }));
  }

  /** Snoozed threads whose time has come go back to pending, with a synthetic activity entry. */
  async resurfaceSnoozed(): Promise<number> {
    const due = await this.repo.unscopedDueSnoozes(this.clock.now(), 100);
    let count = 0;
    for (const row of due) {
      const scope = jobScope(row);
      try {
        const done = await this.dbService.transaction(async () => {
          const conversation = await this.repo.lock(scope, row.id);
          // Gone since the scan (deleted with its org), or no longer due: nothing to do.
          if (!conversation || conversation.status !== 'snoozed' || !conversation.snoozeUntil || conversation.snoozeUntil > this.clock.now()) return false;
          const entry = await this.repo.insertMessage(scope, {
            conversationId: conversation.id,
            role: 'system',
            senderId: null,
            content: `Snooze ended (${conversation.snoozeUntil.toISOString()}): the conversation is pending again.`,
            isInternal: true,
          });
          const updated = await this.applyTransition(scope, conversation, { kind: 'snooze_expired' }, null, {});
          this.dbService.afterCommit(() => entry && this.events.message('workspace_message_added', updated, entry));
          return true;
        });
        if (done) count++;
      } catch (err) {
        logger.error({ err, conversationId: row.id }, 'resurfacing a snoozed conversation failed');
      }
    }
    return count;
  }

  // Helpers

  /**
   * A client message to a pending thread, outside a transaction: one statement that stores it only
   * while the thread is pending and leaves the status as it is (a client message keeps a pending
   * thread pending), then the event. Nothing (undefined) when the thread was seen in another
   * status, was not pending or is gone, or the statement wrote nothing: the caller's transaction
   * then applies the status rule to the locked row.
   */
  private async storeWhilePending(
    scope: OrgScope,
    values: { conversationId: string; senderId: string | null; content: string; idempotencyKey: string | null },
    seen: ConversationStatus | undefined,
  ): Promise<{ conversation: TurnThread; message: MessageRow; history: HistoryEntry[] } | undefined> {
    if ((seen !== undefined && seen !== 'pending') || this.dbService.inTransaction) return undefined;
    const stored = await this.repo.storeClientMessageWhilePending(scope, values, { claimLeaseMs: this.turns.firstClaimMs, historyLimit: this.turns.historyLimit });
    if (!stored) return undefined;
    // After its commit, as afterCommit would: a failed push is logged, the message stands.
    await this.events
      .message('user_message_received', stored.conversation, stored.message)
      .catch((err: unknown) => logger.error({ err, conversationId: values.conversationId }, 'after-commit hook failed'));
    return stored;
  }

  /**
   * Applies a trigger to a locked conversation inside the caller's transaction: the pure rule
   * decides, the row, the attention-list item and the after-commit event follow.
   */
  private async applyTransition(
    scope: OrgScope,
    conversation: ConversationRow,
    trigger: StatusTrigger,
    principal: Principal | null,
    extra: { lastMessageAt?: Date; snoozeUntil?: Date },
    options: { mirrorQueue?: boolean } = {},
  ): Promise<ConversationRow> {
    const result = transition(conversation.status, trigger, principal ? statusActor(principal) : 'system', conversation.resolvedAt);
    if (!result.ok) throw result.error === 'forbidden' ? AppError.forbidden(result.message) : AppError.conflict(result.message);
    const snoozeChanged = result.to === 'snoozed' && extra.snoozeUntil !== undefined;
    if (!result.changed && !snoozeChanged && !extra.lastMessageAt) return conversation;
    const updated = await this.repo.update(scope, conversation.id, {
      status: result.to,
      ...(result.stampResolvedAt ? { resolvedAt: this.clock.now() } : {}),
      snoozeUntil: result.to === 'snoozed' ? (extra.snoozeUntil ?? conversation.snoozeUntil) : null,
      ...(extra.lastMessageAt ? { lastMessageAt: extra.lastMessageAt } : {}),
    });
    if (result.changed || snoozeChanged) {
      if (options.mirrorQueue !== false) await this.queue.mirror(scope, updated, conversation.status);
      this.dbService.afterCommit(() => this.events.statusChanged(updated, conversation.status, principal?.userId ?? null));
    }
    return updated;
  }

  /** The thread's row, locked for the rest of the transaction; 404 when it is gone (deleted with its org since it was read). */
  private async lockThread(scope: OrgScope, id: string): Promise<ConversationRow> {
    const row = await this.repo.lock(scope, id);
    if (!row) throw AppError.notFound('Conversation');
    return row;
  }

  private async sentDto(principal: Principal, conversation: ConversationRow, message: MessageRow): Promise<SentMessageDto> {
    const viewer = viewerOf(principal);
    const reply = message.role === 'client' ? await this.repo.findReply(threadScope(conversation), conversation.id, message.id) : undefined;
    const deliveries = await this.deliveries.of(viewer, [conversation], reply ? [message, reply] : [message], threadScope);
    const dto = (row: MessageRow) => toMessageDto(row, viewer, conversation.specialistId, this.links, deliveries.get(row.id));
    return { ...dto(message), reply: reply ? dto(reply) : null };
  }

  private async cards(specialistIds: string[]): Promise<Map<string, SpecialistCard>> {
    const rows = await this.specialists.byIds(specialistIds);
    return new Map([...rows.values()].map((s) => [s.id, { id: s.id, name: s.name, avatarUrl: s.avatarUrl }]));
  }

  private async dto(row: ConversationRow, viewer: Viewer): Promise<ConversationDto> {
    return toConversationDto(row, (await this.cards([row.specialistId])).get(row.specialistId), viewer);
  }
}

function viewerOf(principal: Principal): Viewer {
  return isClientViewer(principal) ? 'client' : 'staff';
}

/** Corrections and assignment are Expert work: expert, account_manager, superadmin. */
function requireStaffActor(principal: Principal): void {
  const actor = statusActor(principal);
  if (actor !== 'expert' && actor !== 'account_manager' && actor !== 'superadmin') throw AppError.forbidden('Only Experts, account managers and superadmins can do this');
}
