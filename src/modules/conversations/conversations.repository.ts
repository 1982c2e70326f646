import { Injectable } from '@nestjs/common';
import { and, asc, desc, eq, exists, inArray, lt, lte, or, sql, type Column, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { ConversationChannel, ConversationStatus } from '../../contracts/conversations.js';
import { systemNow } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { afterComputedKeyset, anyUuid, olderThan } from '../../platform/db/query-parts.js';
import type { Keyset } from '../../platform/http/pagination.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { ledgerRowsInsert } from '../agent/index.js';
import { reachFilter, type Reach } from './conversations.access.js';
import { MATCH_END, MATCH_START } from './conversations.dto.js';
import {
  conversationMessages as messages,
  conversationTurns as turns,
  conversations,
  messageRevisions,
  messageWords,
  queueItems,
  type ConversationRow,
  type MessageRow,
  type QueueItemRow,
  type TurnRow,
  type TurnThread,
} from './conversations.tables.js';

type NewConversation = typeof conversations.$inferInsert;

/** The attention list's filters; `assignee` null: items nobody is assigned to. */
export interface QueueFilter {
  status?: ConversationStatus;
  orgId?: string;
  specialistId?: string;
  channel?: ConversationChannel;
  assignee?: string | null;
  conversationId?: string;
  q?: string;
}
type NewMessage = typeof messages.$inferInsert;

/** What an agent turn is shown of a thread's message: its author's side and its text. */
export type HistoryEntry = Pick<MessageRow, 'role' | 'content'>;

/**
 * A thread's messages before `before` (a `(created_at, id)` row), the newest `limit` of them,
 * oldest first, as one JSON array: what an agent turn is shown (no internal note, no activity
 * entry). The thread index gives them at once, however long the thread; the bound is the stored
 * time to the microsecond (a Date holds milliseconds).
 */
function historyBefore(orgId: SQLWrapper, conversationId: SQLWrapper, before: SQLWrapper, limit: SQLWrapper): SQL<HistoryEntry[]> {
  return sql<HistoryEntry[]>`coalesce((select json_agg(json_build_object('role', h.role, 'content', h.content) order by h.created_at, h.id)
    from (select m.role, m.content, m.created_at, m.id from ${messages} m
      where m.org_id = ${orgId} and m.conversation_id = ${conversationId} and not m.is_internal and m.role <> 'system' and (m.created_at, m.id) < ${before}
      order by m.created_at desc, m.id desc limit ${limit}) h), '[]'::json)`;
}

/**
 * Conversation queries. Every read of tenant rows goes through the caller's Reach (or an org id
 * the service already checked), so a query that forgets the scope has to say so.
 */
@Injectable()
export class ConversationsRepository {
  /** The statements of every client message and its turn, prepared (see DbService.prepared). */
  private readonly statements: ReturnType<typeof prepareStatements>;

  constructor(private readonly dbService: DbService) {
    this.statements = prepareStatements(dbService);
  }

  private get db() {
    return this.dbService.db;
  }

  async insertConversation(scope: OrgScope, values: Omit<NewConversation, 'orgId'>): Promise<ConversationRow> {
    const [row] = await this.db
      .insert(conversations)
      .values({ ...values, orgId: scope.orgId })
      .returning();
    return row!;
  }

  async findVisible(reach: Reach, id: string): Promise<ConversationRow | undefined> {
    // The two common reaches have a prepared statement each; an Expert's grants vary in shape.
    const [row] =
      reach.kind === 'platform_wide'
        ? await this.statements.unscopedById({ id })
        : reach.kind === 'member'
          ? await this.statements.byIdInOrgs({ id, orgIds: reach.orgIds })
          : await this.db
              .select()
              .from(conversations)
              .where(and(eq(conversations.id, id), reachFilter(reach, conversations)));
    return row;
  }

  /** The row in the org of the scope (a job's read of the thread its event names). */
  async find(scope: OrgScope, id: string): Promise<ConversationRow | undefined> {
    const [row] = await this.db
      .select()
      .from(conversations)
      .where(and(inOrg(conversations.orgId, scope), eq(conversations.id, id)));
    return row;
  }

  /** The row, locked for the rest of the transaction (status changes of one thread are serialized); undefined when it is gone. */
  async lock(scope: OrgScope, id: string): Promise<ConversationRow | undefined> {
    const [row] = await this.db
      .select()
      .from(conversations)
      .where(and(inOrg(conversations.orgId, scope), eq(conversations.id, id)))
      .for('update');
    return row;
  }

  async update(scope: OrgScope, id: string, values: Partial<NewConversation>): Promise<ConversationRow> {
    const [row] = await this.db
      .update(conversations)
      .set({ ...values, updatedAt: systemNow() })
      .where(and(inOrg(conversations.orgId, scope), eq(conversations.id, id)))
      .returning();
    return row!;
  }

  /** Newest activity first; limit + 1 rows. */
  async list(reach: Reach, filter: { orgId?: string; status?: ConversationStatus }, page: { limit: number; after?: Keyset }): Promise<ConversationRow[]> {
    return this.db
      .select()
      .from(conversations)
      .where(
        and(
          reachFilter(reach, conversations),
          filter.orgId ? eq(conversations.orgId, filter.orgId) : undefined,
          filter.status ? eq(conversations.status, filter.status) : undefined,
          olderThan(conversations.lastMessageAt, conversations.id, page.after),
        ),
      )
      .orderBy(desc(conversations.lastMessageAt), desc(conversations.id))
      .limit(page.limit + 1);
  }

  /**
   * Snoozed threads whose deferral has expired, in every org: the resurfacing sweep's input
   * (platform-wide: the sweep finds the orgs). Each row's own org scopes what follows (jobScope).
   */
  async unscopedDueSnoozes(now: Date, limit: number): Promise<ConversationRow[]> {
    return this.db
      .select()
      .from(conversations)
      .where(and(eq(conversations.status, 'snoozed'), lte(conversations.snoozeUntil, now)))
      .orderBy(asc(conversations.snoozeUntil))
      .limit(limit);
  }

  // Messages

  /** Inserts, in the scope's org, or returns undefined when the idempotency key was used before in this conversation. */
  async insertMessage(scope: OrgScope, values: Omit<NewMessage, 'orgId'>): Promise<MessageRow | undefined> {
    const [row] = await this.db
      .insert(messages)
      .values({ ...values, orgId: scope.orgId })
      .onConflictDoNothing()
      .returning();
    return row;
  }

  /**
   * A client message to a pending thread in one statement (it commits alone): the thread's row
   * locked, the message stored, its turn written claimed by the caller for `claimLeaseMs` (see
   * `insertTurn`) and the thread's last message moved, as the locking transaction does for a
   * client message that leaves the status as it is; it also reads the turn's history (the
   * thread's `historyLimit` messages before this one, `historyBefore`), as the statement saw the
   * thread. Of the thread it returns what the turn reads (`TurnThread`, which never changes).
   * Nothing is written (undefined) when the thread is no longer pending or the idempotency key was
   * used: the caller then takes the transaction that applies the status rule.
   */
  async storeClientMessageWhilePending(
    scope: OrgScope,
    values: { conversationId: string; senderId: string | null; content: string; idempotencyKey: string | null },
    turn: { claimLeaseMs: number; historyLimit: number },
  ): Promise<{ message: MessageRow; conversation: TurnThread; history: HistoryEntry[] } | undefined> {
    const [row] = await this.statements.storeClientMessage({ ...values, orgId: scope.orgId, now: systemNow(), leaseS: turn.claimLeaseMs / 1000, historyLimit: turn.historyLimit });
    return row?.thread ? { message: row.message, conversation: row.thread, history: row.history?.entries ?? [] } : undefined;
  }

  /** The users who wrote a client message in this conversation (its portal participants). */
  async clientSenders(scope: OrgScope, conversationId: string): Promise<string[]> {
    const rows = await this.db
      .selectDistinct({ senderId: messages.senderId })
      .from(messages)
      .where(and(inOrg(messages.orgId, scope), eq(messages.conversationId, conversationId), eq(messages.role, 'client')));
    return rows.flatMap((r) => (r.senderId ? [r.senderId] : []));
  }

  async findByIdempotencyKey(scope: OrgScope, conversationId: string, key: string): Promise<MessageRow | undefined> {
    const [row] = await this.db
      .select()
      .from(messages)
      .where(and(inOrg(messages.orgId, scope), eq(messages.conversationId, conversationId), eq(messages.idempotencyKey, key)));
    return row;
  }

  async findMessage(scope: OrgScope, conversationId: string, messageId: string): Promise<MessageRow | undefined> {
    const [row] = await this.db
      .select()
      .from(messages)
      .where(and(inOrg(messages.orgId, scope), eq(messages.conversationId, conversationId), eq(messages.id, messageId)));
    return row;
  }

  async findReply(scope: OrgScope, conversationId: string, messageId: string): Promise<MessageRow | undefined> {
    const [row] = await this.statements.reply({ orgId: scope.orgId, conversationId, messageId });
    return row;
  }

  /** The newest `limit` messages (before `beforeId` when given), newest first; limit + 1 rows. */
  async thread(scope: OrgScope, conversationId: string, opts: { includeInternal: boolean; limit: number; before?: MessageRow }): Promise<MessageRow[]> {
    const b = opts.before;
    return this.db
      .select()
      .from(messages)
      .where(
        and(
          inOrg(messages.orgId, scope),
          eq(messages.conversationId, conversationId),
          opts.includeInternal ? undefined : eq(messages.isInternal, false),
          olderThan(messages.createdAt, messages.id, b && { at: b.createdAt, id: b.id }),
        ),
      )
      .orderBy(desc(messages.createdAt), desc(messages.id))
      .limit(opts.limit + 1);
  }

  /** The thread's messages before the message `beforeId`, the newest `limit`, oldest first (`historyBefore`). */
  async historyBefore(scope: OrgScope, conversationId: string, beforeId: string, limit: number): Promise<HistoryEntry[]> {
    const [row] = await this.statements.history({ orgId: scope.orgId, conversationId, beforeId, limit });
    return row?.entries ?? [];
  }

  async updateMessage(scope: OrgScope, id: string, values: Partial<Omit<NewMessage, 'orgId'>>): Promise<MessageRow> {
    const [row] = await this.db
      .update(messages)
      .set(values)
      .where(and(inOrg(messages.orgId, scope), eq(messages.id, id)))
      .returning();
    return row!;
  }

  async insertRevision(scope: OrgScope, values: Omit<typeof messageRevisions.$inferInsert, 'orgId'>): Promise<void> {
    await this.db.insert(messageRevisions).values({ ...values, orgId: scope.orgId });
  }

  async revisions(scope: OrgScope, messageId: string) {
    return this.db
      .select()
      .from(messageRevisions)
      .where(and(inOrg(messageRevisions.orgId, scope), eq(messageRevisions.messageId, messageId)))
      .orderBy(asc(messageRevisions.createdAt));
  }

  /** Full-text search over the messages the caller may see; conversations by their newest hit. */
  async search(reach: Reach, filter: { q: string; orgId?: string; includeInternal: boolean }, page: { limit: number; after?: Keyset }): Promise<Array<{ conversation: ConversationRow; hitAt: Date }>> {
    const query = sql`websearch_to_tsquery('english', ${filter.q})`;
    const hitAt = sql<Date>`max(${messages.createdAt})`.mapWith(messages.createdAt);
    const rows = await this.db
      .select({ conversation: conversations, hitAt })
      .from(conversations)
      .innerJoin(messages, eq(messages.conversationId, conversations.id))
      .where(
        and(
          reachFilter(reach, conversations),
          filter.orgId ? eq(conversations.orgId, filter.orgId) : undefined,
          filter.includeInternal ? undefined : eq(messages.isInternal, false),
          sql`${messageWords(messages.content)} @@ ${query}`,
        ),
      )
      .groupBy(conversations.id)
      .having(afterComputedKeyset('desc', sql`max(${messages.createdAt})`, conversations.id, page.after))
      .orderBy(desc(hitAt), desc(conversations.id))
      .limit(page.limit + 1);
    return rows;
  }

  /** The matching messages of some conversations (in the orgs of `scopes`), newest first. */
  async searchMatches(scopes: readonly OrgScope[], conversationIds: string[], filter: { q: string; includeInternal: boolean }): Promise<MessageRow[]> {
    if (conversationIds.length === 0 || scopes.length === 0) return [];
    return this.db
      .select()
      .from(messages)
      .where(
        and(
          inAnyOrg(messages.orgId, scopes),
          inArray(messages.conversationId, conversationIds),
          filter.includeInternal ? undefined : eq(messages.isInternal, false),
          sql`${messageWords(messages.content)} @@ websearch_to_tsquery('english', ${filter.q})`,
        ),
      )
      .orderBy(desc(messages.createdAt));
  }

  // Turns

  /**
   * Queues a message's turn; with `claimLeaseMs`, written already claimed by the caller (`running`,
   * its first attempt, the claim expiring that long from now), which runs it next without a claim
   * of its own (see `extendClaim`).
   */
  async insertTurn(scope: OrgScope, values: Pick<typeof turns.$inferInsert, 'messageId' | 'conversationId'>, claimLeaseMs?: number): Promise<void> {
    const claim = claimLeaseMs === undefined ? {} : { status: 'running' as const, attempts: 1, claimedUntil: sql`now() + make_interval(secs => ${claimLeaseMs / 1000}::double precision)` };
    await this.db
      .insert(turns)
      .values({ ...values, ...claim, orgId: scope.orgId })
      .onConflictDoNothing();
  }

  /** Moves the expiry of a running turn's claim to `leaseMs` from now (a turn outliving its first, short claim). */
  async extendClaim(scope: OrgScope, messageId: string, leaseMs: number): Promise<void> {
    await this.dbService.root
      .update(turns)
      .set({ claimedUntil: sql`now() + make_interval(secs => ${leaseMs / 1000}::double precision)` })
      .where(and(inOrg(turns.orgId, scope), eq(turns.messageId, messageId), eq(turns.status, 'running')));
  }

  /**
   * Takes a turn that is queued, or running under an expired claim (its worker died): one
   * claimant at a time, whatever the number of instances. On the root database: the claim commits
   * on its own, before the model is called.
   */
  async claimTurn(scope: OrgScope, messageId: string, leaseMs: number): Promise<TurnRow | undefined> {
    const [row] = await this.statements.claimTurn({ orgId: scope.orgId, messageId, leaseS: leaseMs / 1000, now: systemNow() });
    return row;
  }

  /**
   * A web thread's Specialist reply in one statement (it commits alone): the reply stored unless
   * the turn's message already has one, the turn done, and the thread marked answered at the
   * reply's time, and the turn's ledger rows (`ledger`, the agent's `PendingLedger.entries`), written
   * whether or not the reply is new: its model calls were made. Returns the new reply, or nothing
   * when the message had a reply already. The thread's row is not returned: what its reply's event
   * needs of it (its id, org, Specialist and channel) never changes.
   */
  async deliverReply(scope: OrgScope, values: { conversationId: string; specialistId: string; messageId: string; content: string; ledger: string }): Promise<MessageRow | undefined> {
    const [row] = await this.statements.deliverReply({ ...values, orgId: scope.orgId, now: systemNow() });
    return row;
  }

  async finishTurn(scope: OrgScope, messageId: string, status: 'done' | 'failed', lastError: string | null = null): Promise<void> {
    await this.db
      .update(turns)
      .set({ status, lastError, claimedUntil: null, updatedAt: systemNow() })
      .where(and(inOrg(turns.orgId, scope), eq(turns.messageId, messageId)));
  }

  /**
   * Turns nobody is working on, in every org (platform-wide: the recovery sweep finds the orgs):
   * queued for a while (the request that made them died) or claimed past their lease. Each row's
   * own org scopes what follows (jobScope).
   */
  async unscopedStrandedTurns(queuedBefore: Date, limit: number): Promise<TurnRow[]> {
    return this.dbService.root
      .select()
      .from(turns)
      .where(or(and(eq(turns.status, 'queued'), lt(turns.createdAt, queuedBefore)), and(eq(turns.status, 'running'), lt(turns.claimedUntil, sql`now()`))))
      .orderBy(asc(turns.createdAt))
      .limit(limit);
  }

  async findTurn(scope: OrgScope, messageId: string): Promise<TurnRow | undefined> {
    const [row] = await this.db
      .select()
      .from(turns)
      .where(and(inOrg(turns.orgId, scope), eq(turns.messageId, messageId)));
    return row;
  }

  // Attention list

  async findQueueItem(scope: OrgScope, conversationId: string): Promise<QueueItemRow | undefined> {
    const [row] = await this.db
      .select()
      .from(queueItems)
      .where(and(inOrg(queueItems.orgId, scope), eq(queueItems.conversationId, conversationId)));
    return row;
  }

  async insertQueueItem(scope: OrgScope, values: Omit<typeof queueItems.$inferInsert, 'orgId'>): Promise<QueueItemRow> {
    const [row] = await this.db
      .insert(queueItems)
      .values({ ...values, orgId: scope.orgId })
      .returning();
    return row!;
  }

  async updateQueueItem(scope: OrgScope, id: string, values: Partial<Omit<typeof queueItems.$inferInsert, 'orgId'>>): Promise<QueueItemRow> {
    const [row] = await this.db
      .update(queueItems)
      .set({ ...values, updatedAt: sql`clock_timestamp()` })
      .where(and(inOrg(queueItems.orgId, scope), eq(queueItems.id, id)))
      .returning();
    return row!;
  }

  /**
   * The messages of some threads that match a search, newest first, each with its text around the
   * matches (`ts_headline`, the matched words between MATCH_START and MATCH_END).
   */
  async matchExcerpts(
    scopes: readonly OrgScope[],
    conversationIds: string[],
    q: string,
  ): Promise<Array<{ id: string; conversationId: string; isInternal: boolean; createdAt: Date; excerpt: string }>> {
    if (conversationIds.length === 0 || scopes.length === 0) return [];
    const query = sql`websearch_to_tsquery('english', ${q})`;
    const options = `StartSel="${MATCH_START}", StopSel="${MATCH_END}", MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "`;
    return this.db
      .select({
        id: messages.id,
        conversationId: messages.conversationId,
        isInternal: messages.isInternal,
        createdAt: messages.createdAt,
        excerpt: sql<string>`ts_headline('english', ${messages.content}, ${query}, ${options})`,
      })
      .from(messages)
      .where(and(inAnyOrg(messages.orgId, scopes), anyUuid(messages.conversationId, conversationIds), sql`${messageWords(messages.content)} @@ ${query}`))
      .orderBy(desc(messages.createdAt), desc(messages.id));
  }

  /** The orgs and Specialists the caller's attention list holds items of. */
  async queueFacets(reach: Reach): Promise<Array<{ orgId: string; specialistId: string }>> {
    return this.db.selectDistinct({ orgId: queueItems.orgId, specialistId: queueItems.specialistId }).from(queueItems).where(reachFilter(reach, queueItems)).limit(1000);
  }

  /** The conversations of these ids that are in the orgs of `scopes`. */
  async conversationsByIds(scopes: readonly OrgScope[], ids: string[]): Promise<ConversationRow[]> {
    if (ids.length === 0 || scopes.length === 0) return [];
    return this.statements.byIds({ orgIds: orgIdsOf(scopes), ids });
  }
}

/** The distinct orgs of some scopes (each vouched for by its maker). */
function orgIdsOf(scopes: readonly OrgScope[]): string[] {
  return [...new Set(scopes.map((s) => s.orgId))];
}

/** The tenant condition over several scopes (a page of threads of several orgs): `column = any(<their orgs>)`. */
function inAnyOrg(column: Column, scopes: readonly OrgScope[]): SQL {
  return scopes.length === 1 ? inOrg(column, scopes[0]!) : anyUuid(column, orgIdsOf(scopes));
}

/** The prepared statements of the message path: a client message, its turn and its reply. */
function prepareStatements(dbService: DbService) {
  const p = sql.placeholder;
  return {
    /** Any org's thread by id: the platform-wide reach of org-wide roles only. */
    unscopedById: dbService.prepared<ConversationRow[], { id: string }>('conversations_by_id', (db) =>
      db
        .select()
        .from(conversations)
        .where(eq(conversations.id, p('id'))),
    ),
    byIds: dbService.prepared<ConversationRow[], { orgIds: string[]; ids: string[] }>('conversations_by_ids_in_orgs', (db) =>
      db
        .select()
        .from(conversations)
        .where(and(anyUuid(conversations.orgId, p('orgIds')), anyUuid(conversations.id, p('ids')))),
    ),
    byIdInOrgs: dbService.prepared<ConversationRow[], { id: string; orgIds: string[] }>('conversations_by_id_in_orgs', (db) =>
      db
        .select()
        .from(conversations)
        .where(and(eq(conversations.id, p('id')), anyUuid(conversations.orgId, p('orgIds')))),
    ),
    reply: dbService.prepared<MessageRow[], { orgId: string; conversationId: string; messageId: string }>('conversation_messages_reply_in_org', (db) =>
      db
        .select()
        .from(messages)
        .where(and(eq(messages.orgId, p('orgId')), eq(messages.conversationId, p('conversationId')), eq(messages.replyToMessageId, p('messageId')))),
    ),
    history: dbService.prepared<Array<{ entries: HistoryEntry[] }>, { orgId: string; conversationId: string; beforeId: string; limit: number }>('conversation_messages_history_before_in_org', (db) =>
      db
        .select({
          entries: historyBefore(p('orgId'), p('conversationId'), sql`(select u.created_at, u.id from ${messages} u where u.org_id = ${p('orgId')} and u.id = ${p('beforeId')})`, p('limit')),
        })
        .from(sql`(select 1) as history`),
    ),
    storeClientMessage: dbService.prepared<
      Array<{ message: MessageRow; thread: TurnThread | null; history: { entries: HistoryEntry[] } | null }>,
      { orgId: string; conversationId: string; senderId: string | null; content: string; idempotencyKey: string | null; now: Date; leaseS: number; historyLimit: number }
    >('conversation_client_message_store_in_org', (db) => {
      const locked = db.$with('locked').as(
        db
          .select({ id: conversations.id, orgId: conversations.orgId })
          .from(conversations)
          .where(and(eq(conversations.orgId, p('orgId')), eq(conversations.id, p('conversationId')), eq(conversations.status, 'pending')))
          .for('update'),
      );
      // Every column, in the table's order.
      const message = db.$with('message').as(
        db
          .insert(messages)
          .select(
            sql`select gen_random_uuid(), ${locked.id}, ${locked.orgId}, 'client', ${p('senderId')}::uuid, ${p('content')}::text, false, null::uuid, ${p('idempotencyKey')}::text, clock_timestamp(), null::timestamptz from ${locked}`,
          )
          .onConflictDoNothing()
          .returning(),
      );
      const turn = db.$with('turn').as(
        db
          .insert(turns)
          .select(
            db
              .select({
                messageId: message.id,
                conversationId: message.conversationId,
                orgId: message.orgId,
                status: sql<'running'>`'running'`.as('status'),
                attempts: sql<number>`1`.as('attempts'),
                claimedUntil: sql<Date | null>`now() + make_interval(secs => ${p('leaseS')}::double precision)`.as('claimedUntil'),
                lastError: sql<string | null>`null::text`.as('lastError'),
                createdAt: sql<Date>`now()`.as('createdAt'),
                updatedAt: sql<Date>`now()`.as('updatedAt'),
              })
              .from(message),
          )
          .onConflictDoNothing()
          .returning({ messageId: turns.messageId }),
      );
      const thread = db.$with('thread').as(
        db
          .update(conversations)
          .set({ status: 'pending', snoozeUntil: null, lastMessageAt: sql`(select ${message.createdAt} from ${message})`, updatedAt: sql`${p('now')}` })
          .where(and(eq(conversations.orgId, p('orgId')), eq(conversations.id, p('conversationId')), exists(db.select({ one: sql`1` }).from(message))))
          .returning({
            id: conversations.id,
            orgId: conversations.orgId,
            assignmentId: conversations.assignmentId,
            specialistId: conversations.specialistId,
            channel: conversations.channel,
          }),
      );
      // The turn's history, read by the same statement: the thread before the new message.
      const history = db
        .$with('history')
        .as(db.select({ entries: historyBefore(sql`${message.orgId}`, sql`${message.conversationId}`, sql`(${message.createdAt}, ${message.id})`, p('historyLimit')).as('entries') }).from(message));
      return db
        .with(locked, message, turn, thread, history)
        .select()
        .from(message)
        .leftJoin(thread, sql`true`)
        .leftJoin(history, sql`true`);
    }),
    deliverReply: dbService.prepared<MessageRow[], { orgId: string; conversationId: string; specialistId: string; messageId: string; content: string; ledger: string; now: Date }>(
      'conversation_reply_deliver_in_org',
      (db) => {
        const reply = db.$with('reply').as(
          db
            .insert(messages)
            .values({ conversationId: p('conversationId'), orgId: p('orgId'), role: 'specialist', senderId: p('specialistId'), content: p('content'), replyToMessageId: p('messageId') })
            .onConflictDoNothing()
            .returning(),
        );
        const turn = db.$with('turn').as(
          db
            .update(turns)
            .set({ status: 'done', lastError: null, claimedUntil: null, updatedAt: sql`${p('now')}` })
            .where(and(eq(turns.orgId, p('orgId')), eq(turns.messageId, p('messageId'))))
            .returning({ messageId: turns.messageId }),
        );
        const thread = db.$with('thread').as(
          db
            .update(conversations)
            .set({ autoResponded: true, lastMessageAt: sql`(select ${reply.createdAt} from ${reply})`, updatedAt: sql`${p('now')}` })
            .where(and(eq(conversations.orgId, p('orgId')), eq(conversations.id, p('conversationId')), exists(db.select({ one: sql`1` }).from(reply))))
            .returning({ id: conversations.id }),
        );
        // The turn's model calls, whether or not the reply is new: a data-modifying CTE always runs (the thread's update too).
        const ledger = db.$with('ledger', { id: sql<string>`id`.as('id') }).as(ledgerRowsInsert(p('orgId'), p('ledger')));
        return db.with(reply, turn, thread, ledger).select().from(reply);
      },
    ),
    claimTurn: dbService.prepared<TurnRow[], { orgId: string; messageId: string; leaseS: number; now: Date }>(
      'conversation_turns_claim_in_org',
      (db) =>
        db
          .update(turns)
          .set({
            status: 'running',
            attempts: sql`${turns.attempts} + 1`,
            claimedUntil: sql`now() + make_interval(secs => ${p('leaseS')}::double precision)`,
            updatedAt: sql`${p('now')}`,
          })
          .where(and(eq(turns.orgId, p('orgId')), eq(turns.messageId, p('messageId')), or(eq(turns.status, 'queued'), and(eq(turns.status, 'running'), lt(turns.claimedUntil, sql`now()`)))))
          .returning(),
      { root: true },
    ),
  };
}
