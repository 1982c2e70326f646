import { Injectable } from '@nestjs/common';
import { and, asc, desc, eq, inArray, lt, lte, ne, or, sql } from 'drizzle-orm';
import type { ConversationStatus } from '../../contracts/conversations.js';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { anyUuid, olderThan } from '../../platform/db/query-parts.js';
import type { Keyset } from '../../platform/http/pagination.js';
import { reachFilter, type Reach } from './conversations.access.js';
import {
  conversationMessages as messages,
  conversationTurns as turns,
  conversations,
  messageRevisions,
  queueItems,
  type ConversationRow,
  type MessageRow,
  type QueueItemRow,
  type TurnRow,
} from './conversations.tables.js';

type NewConversation = typeof conversations.$inferInsert;
type NewMessage = typeof messages.$inferInsert;

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

  async insertConversation(values: NewConversation): Promise<ConversationRow> {
    const [row] = await this.db.insert(conversations).values(values).returning();
    return row!;
  }

  async findVisible(reach: Reach, id: string): Promise<ConversationRow | undefined> {
    // The two common reaches have a prepared statement each; an Expert's grants vary in shape.
    const [row] =
      reach.kind === 'all'
        ? await this.statements.byId({ id })
        : reach.kind === 'member'
          ? await this.statements.byIdInOrgs({ id, orgIds: reach.orgIds })
          : await this.db
              .select()
              .from(conversations)
              .where(and(eq(conversations.id, id), reachFilter(reach, conversations)));
    return row;
  }

  /** The row, locked for the rest of the transaction (status changes of one thread are serialized). */
  async lock(id: string): Promise<ConversationRow> {
    const [row] = await this.db.select().from(conversations).where(eq(conversations.id, id)).for('update');
    return row!;
  }

  async update(id: string, values: Partial<NewConversation>): Promise<ConversationRow> {
    const [row] = await this.db
      .update(conversations)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(conversations.id, id))
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

  /** Snoozed threads whose deferral has expired. */
  async dueSnoozes(now: Date, limit: number): Promise<ConversationRow[]> {
    return this.db
      .select()
      .from(conversations)
      .where(and(eq(conversations.status, 'snoozed'), lte(conversations.snoozeUntil, now)))
      .orderBy(asc(conversations.snoozeUntil))
      .limit(limit);
  }

  // Messages

  /** Inserts, or returns undefined when the idempotency key was used before in this conversation. */
  async insertMessage(values: NewMessage): Promise<MessageRow | undefined> {
    const [row] = await this.db.insert(messages).values(values).onConflictDoNothing().returning();
    return row;
  }

  async findByIdempotencyKey(conversationId: string, key: string): Promise<MessageRow | undefined> {
    const [row] = await this.db
      .select()
      .from(messages)
      .where(and(eq(messages.conversationId, conversationId), eq(messages.idempotencyKey, key)));
    return row;
  }

  async findMessage(conversationId: string, messageId: string): Promise<MessageRow | undefined> {
    const [row] = await this.db
      .select()
      .from(messages)
      .where(and(eq(messages.conversationId, conversationId), eq(messages.id, messageId)));
    return row;
  }

  async findReply(conversationId: string, messageId: string): Promise<MessageRow | undefined> {
    const [row] = await this.statements.reply({ conversationId, messageId });
    return row;
  }

  /** The newest `limit` messages (before `beforeId` when given), newest first; limit + 1 rows. */
  async thread(conversationId: string, opts: { includeInternal: boolean; limit: number; before?: MessageRow }): Promise<MessageRow[]> {
    const b = opts.before;
    return this.db
      .select()
      .from(messages)
      .where(
        and(
          eq(messages.conversationId, conversationId),
          opts.includeInternal ? undefined : eq(messages.isInternal, false),
          olderThan(messages.createdAt, messages.id, b && { at: b.createdAt, id: b.id }),
        ),
      )
      .orderBy(desc(messages.createdAt), desc(messages.id))
      .limit(opts.limit + 1);
  }

  /** What the client and the Specialist said up to a message, newest first (the agent's history). */
  async history(conversationId: string, upTo: MessageRow, limit: number): Promise<MessageRow[]> {
    return this.statements.history({ conversationId, upToAt: upTo.createdAt, upToId: upTo.id, limit });
  }

  async updateMessage(id: string, values: Partial<NewMessage>): Promise<MessageRow> {
    const [row] = await this.db.update(messages).set(values).where(eq(messages.id, id)).returning();
    return row!;
  }

  async insertRevision(values: typeof messageRevisions.$inferInsert): Promise<void> {
    await this.db.insert(messageRevisions).values(values);
  }

  async revisions(messageId: string) {
    return this.db.select().from(messageRevisions).where(eq(messageRevisions.messageId, messageId)).orderBy(asc(messageRevisions.createdAt));
  }

  /** Full-text search over the messages the caller may see; conversations by their newest hit. */
  async search(
    reach: Reach,
    filter: { q: string; orgId?: string; includeInternal: boolean },
    page: { limit: number; after?: Keyset },
  ): Promise<Array<{ conversation: ConversationRow; hitAt: Date }>> {
    const query = sql`websearch_to_tsquery('english', ${filter.q})`;
    const hitAt = sql<Date>`max(${messages.createdAt})`.mapWith(messages.createdAt);
    const after = page.after;
    const rows = await this.db
      .select({ conversation: conversations, hitAt })
      .from(conversations)
      .innerJoin(messages, eq(messages.conversationId, conversations.id))
      .where(
        and(
          reachFilter(reach, conversations),
          filter.orgId ? eq(conversations.orgId, filter.orgId) : undefined,
          filter.includeInternal ? undefined : eq(messages.isInternal, false),
          sql`${messages.search} @@ ${query}`,
        ),
      )
      .groupBy(conversations.id)
      .having(after ? sql`(max(${messages.createdAt}), ${conversations.id}) < (${after.at.toISOString()}::timestamptz, ${after.id}::uuid)` : undefined)
      .orderBy(desc(hitAt), desc(conversations.id))
      .limit(page.limit + 1);
    return rows;
  }

  /** The matching messages of some conversations, newest first. */
  async searchMatches(conversationIds: string[], filter: { q: string; includeInternal: boolean }): Promise<MessageRow[]> {
    if (conversationIds.length === 0) return [];
    return this.db
      .select()
      .from(messages)
      .where(
        and(
          inArray(messages.conversationId, conversationIds),
          filter.includeInternal ? undefined : eq(messages.isInternal, false),
          sql`${messages.search} @@ websearch_to_tsquery('english', ${filter.q})`,
        ),
      )
      .orderBy(desc(messages.createdAt));
  }

  // Turns

  async insertTurn(values: typeof turns.$inferInsert): Promise<void> {
    await this.db.insert(turns).values(values).onConflictDoNothing();
  }

  /**
   * Takes a turn that is queued, or running under an expired claim (its worker died): one
   * claimant at a time, whatever the number of instances. On the root database: the claim commits
   * on its own, before the model is called.
   */
  async claimTurn(messageId: string, leaseMs: number): Promise<TurnRow | undefined> {
    const [row] = await this.statements.claimTurn({ messageId, leaseS: leaseMs / 1000, now: new Date() });
    return row;
  }

  async finishTurn(messageId: string, status: 'done' | 'failed', lastError: string | null = null): Promise<void> {
    await this.db.update(turns).set({ status, lastError, claimedUntil: null, updatedAt: new Date() }).where(eq(turns.messageId, messageId));
  }

  /** Turns nobody is working on: queued for a while (the request that made them died) or claimed past their lease. */
  async strandedTurns(queuedBefore: Date, limit: number): Promise<TurnRow[]> {
    return this.dbService.root
      .select()
      .from(turns)
      .where(
        or(
          and(eq(turns.status, 'queued'), lt(turns.createdAt, queuedBefore)),
          and(eq(turns.status, 'running'), lt(turns.claimedUntil, sql`now()`)),
        ),
      )
      .orderBy(asc(turns.createdAt))
      .limit(limit);
  }

  async findTurn(messageId: string): Promise<TurnRow | undefined> {
    const [row] = await this.db.select().from(turns).where(eq(turns.messageId, messageId));
    return row;
  }

  // Attention list

  async findQueueItem(conversationId: string): Promise<QueueItemRow | undefined> {
    const [row] = await this.db.select().from(queueItems).where(eq(queueItems.conversationId, conversationId));
    return row;
  }

  async insertQueueItem(values: typeof queueItems.$inferInsert): Promise<QueueItemRow> {
    const [row] = await this.db.insert(queueItems).values(values).returning();
    return row!;
  }

  async updateQueueItem(id: string, values: Partial<typeof queueItems.$inferInsert>): Promise<QueueItemRow> {
    const [row] = await this.db
      .update(queueItems)
      .set({ ...values, updatedAt: sql`clock_timestamp()` })
      .where(eq(queueItems.id, id))
      .returning();
    return row!;
  }

  /** Most recently changed first; limit + 1 rows. */
  async listQueue(reach: Reach, filter: { status?: ConversationStatus; orgId?: string }, page: { limit: number; after?: Keyset }): Promise<QueueItemRow[]> {
    return this.db
      .select()
      .from(queueItems)
      .where(
        and(
          reachFilter(reach, queueItems),
          filter.status ? eq(queueItems.status, filter.status) : undefined,
          filter.orgId ? eq(queueItems.orgId, filter.orgId) : undefined,
          olderThan(queueItems.updatedAt, queueItems.id, page.after),
        ),
      )
      .orderBy(desc(queueItems.updatedAt), desc(queueItems.id))
      .limit(page.limit + 1);
  }

  async conversationsByIds(ids: string[]): Promise<ConversationRow[]> {
    if (ids.length === 0) return [];
    return this.statements.byIds({ ids });
  }
}

/** The prepared statements of the message path: a client message, its turn and its reply. */
function prepareStatements(dbService: DbService) {
  const p = sql.placeholder;
  return {
    byId: dbService.prepared<ConversationRow[], { id: string }>('conversations_by_id', (db) => db.select().from(conversations).where(eq(conversations.id, p('id')))),
    byIds: dbService.prepared<ConversationRow[], { ids: string[] }>('conversations_by_ids', (db) =>
      db.select().from(conversations).where(anyUuid(conversations.id, p('ids'))),
    ),
    byIdInOrgs: dbService.prepared<ConversationRow[], { id: string; orgIds: string[] }>('conversations_by_id_in_orgs', (db) =>
      db
        .select()
        .from(conversations)
        .where(and(eq(conversations.id, p('id')), anyUuid(conversations.orgId, p('orgIds')))),
    ),
    reply: dbService.prepared<MessageRow[], { conversationId: string; messageId: string }>('conversation_messages_reply', (db) =>
      db
        .select()
        .from(messages)
        .where(and(eq(messages.conversationId, p('conversationId')), eq(messages.replyToMessageId, p('messageId')))),
    ),
    history: dbService.prepared<MessageRow[], { conversationId: string; upToAt: Date; upToId: string; limit: number }>('conversation_messages_history', (db) =>
      db
        .select()
        .from(messages)
        .where(
          and(
            eq(messages.conversationId, p('conversationId')),
            eq(messages.isInternal, false),
            ne(messages.role, 'system'),
            or(lt(messages.createdAt, p('upToAt')), eq(messages.id, p('upToId'))),
          ),
        )
        .orderBy(desc(messages.createdAt), desc(messages.id))
        .limit(p('limit')),
    ),
    claimTurn: dbService.prepared<TurnRow[], { messageId: string; leaseS: number; now: Date }>('conversation_turns_claim', (db) =>
      db
        .update(turns)
        .set({
          status: 'running',
          attempts: sql`${turns.attempts} + 1`,
          claimedUntil: sql`now() + make_interval(secs => ${p('leaseS')}::double precision)`,
          updatedAt: sql`${p('now')}`,
        })
        .where(and(eq(turns.messageId, p('messageId')), or(eq(turns.status, 'queued'), and(eq(turns.status, 'running'), lt(turns.claimedUntil, sql`now()`)))))
        .returning(),
      { root: true },
    ),
  };
}
