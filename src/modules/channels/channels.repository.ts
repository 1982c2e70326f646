import { Injectable } from '@nestjs/common';
import { and, asc, count, desc, eq, gt, inArray, lt, lte, max, or, sql } from 'drizzle-orm';
import type { ChannelName } from '../../contracts/channels.js';
import { DbService } from '../../platform/db/db.service.js';
import type { Keyset } from '../../platform/http/pagination.js';
import {
  channelBindings,
  channelThreads,
  conversationArtifacts,
  inboundEvents,
  orgIntegrations,
  outboundMessages,
  type BindingKind,
  type ChannelBindingRow,
  type ChannelThreadRow,
  type InboundEventRow,
  type InboundStatus,
  type IntegrationRow,
  type OutboundRow,
} from './channels.tables.js';

/** Channel queries. Integration reads are scoped by org; bindings are the only way in from outside. */
@Injectable()
export class ChannelsRepository {
  constructor(private readonly dbService: DbService) {}

  private get db() {
    return this.dbService.db;
  }

  // Integrations and bindings

  async insertIntegration(values: typeof orgIntegrations.$inferInsert): Promise<IntegrationRow> {
    const [row] = await this.db.insert(orgIntegrations).values(values).returning();
    return row!;
  }

  async updateIntegration(orgId: string, id: string, values: Partial<typeof orgIntegrations.$inferInsert>): Promise<IntegrationRow | undefined> {
    const [row] = await this.db
      .update(orgIntegrations)
      .set({ ...values, updatedAt: new Date() })
      .where(and(eq(orgIntegrations.orgId, orgId), eq(orgIntegrations.id, id)))
      .returning();
    return row;
  }

  async deleteIntegration(orgId: string, id: string): Promise<IntegrationRow | undefined> {
    const [row] = await this.db
      .delete(orgIntegrations)
      .where(and(eq(orgIntegrations.orgId, orgId), eq(orgIntegrations.id, id)))
      .returning();
    return row;
  }

  listIntegrations(orgId: string): Promise<IntegrationRow[]> {
    return this.db.select().from(orgIntegrations).where(eq(orgIntegrations.orgId, orgId)).orderBy(asc(orgIntegrations.createdAt));
  }

  async findIntegration(orgId: string, id: string): Promise<IntegrationRow | undefined> {
    const [row] = await this.db
      .select()
      .from(orgIntegrations)
      .where(and(eq(orgIntegrations.orgId, orgId), eq(orgIntegrations.id, id)));
    return row;
  }

  /** By id alone: for an event whose integration was already proven at the door (messaging-b). */
  async findIntegrationByIdAny(id: string): Promise<IntegrationRow | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    const [row] = await this.db.select().from(orgIntegrations).where(eq(orgIntegrations.id, id));
    return row;
  }

  async findIntegrationByChannel(orgId: string, channel: ChannelName): Promise<IntegrationRow | undefined> {
    const [row] = await this.db
      .select()
      .from(orgIntegrations)
      .where(and(eq(orgIntegrations.orgId, orgId), eq(orgIntegrations.channel, channel)));
    return row;
  }

  /** Replaces an integration's bindings; a value verified for another integration is a unique violation. */
  async replaceBindings(integrationId: string, orgId: string, channel: ChannelName, bindings: Array<{ kind: BindingKind; value: string; verified: boolean }>): Promise<void> {
    await this.db.delete(channelBindings).where(eq(channelBindings.integrationId, integrationId));
    if (bindings.length > 0) await this.db.insert(channelBindings).values(bindings.map((b) => ({ ...b, channel, integrationId, orgId })));
  }

  /** The bindings of one or more integrations (by the integration index). */
  bindingsOf(integrationIds: string | string[]): Promise<ChannelBindingRow[]> {
    const ids = Array.isArray(integrationIds) ? integrationIds : [integrationIds];
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.select().from(channelBindings).where(inArray(channelBindings.integrationId, ids));
  }

  /**
   * The integrations that claim a value (one indexed lookup on the binding's key): the verified
   * one first, then pending claims oldest first.
   */
  bindingsOfValue(channel: ChannelName, kind: BindingKind, value: string, limit = 50): Promise<Array<{ binding: ChannelBindingRow; integration: IntegrationRow }>> {
    return this.db
      .select({ binding: channelBindings, integration: orgIntegrations })
      .from(channelBindings)
      .innerJoin(orgIntegrations, eq(orgIntegrations.id, channelBindings.integrationId))
      .where(and(eq(channelBindings.channel, channel), eq(channelBindings.kind, kind), eq(channelBindings.value, value)))
      .orderBy(desc(channelBindings.verified), asc(orgIntegrations.createdAt))
      .limit(limit);
  }

  /** Marks an integration's bindings verified (all, or the one named); a value verified elsewhere is a unique violation. */
  async verifyBindings(integrationId: string, only?: { kind: BindingKind; value: string }): Promise<void> {
    await this.db
      .update(channelBindings)
      .set({ verified: true })
      .where(and(eq(channelBindings.integrationId, integrationId), only ? and(eq(channelBindings.kind, only.kind), eq(channelBindings.value, only.value)) : undefined));
  }

  // The inbound queue

  /** Keeps a verified call; undefined when the same event was received before. */
  async insertEvent(values: typeof inboundEvents.$inferInsert): Promise<InboundEventRow | undefined> {
    const [row] = await this.db.insert(inboundEvents).values(values).onConflictDoNothing().returning();
    return row;
  }

  async findEventByKey(channel: ChannelName, eventKey: string): Promise<InboundEventRow | undefined> {
    const [row] = await this.db
      .select()
      .from(inboundEvents)
      .where(and(eq(inboundEvents.channel, channel), eq(inboundEvents.eventKey, eventKey)));
    return row;
  }

  /** Takes a queued event (or one whose worker died mid-way) for processing; one taker at a time. */
  async claimEvent(id: string, staleBefore: Date): Promise<InboundEventRow | undefined> {
    const [row] = await this.dbService.root
      .update(inboundEvents)
      .set({ status: 'processing', attempts: sql`${inboundEvents.attempts} + 1`, processedAt: sql`clock_timestamp()` })
      .where(and(eq(inboundEvents.id, id), or(eq(inboundEvents.status, 'queued'), and(eq(inboundEvents.status, 'processing'), lt(inboundEvents.processedAt, staleBefore)))))
      .returning();
    return row;
  }

  async finishEvent(id: string, status: InboundStatus, fields: Partial<Pick<InboundEventRow, 'reason' | 'orgId' | 'integrationId' | 'conversationId' | 'messageId' | 'lastError'>> = {}): Promise<void> {
    await this.db
      .update(inboundEvents)
      .set({ status, ...fields, processedAt: sql`clock_timestamp()` })
      .where(eq(inboundEvents.id, id));
  }

  /** Events accepted and not yet processed: the depth backpressure watches. */
  async openDepth(): Promise<number> {
    const [row] = await this.db.select({ n: count() }).from(inboundEvents).where(inArray(inboundEvents.status, ['queued', 'processing']));
    return Number(row?.n ?? 0);
  }

  /** Queued events nobody took (their job was lost) and processing ones whose worker died. */
  strandedEvents(queuedBefore: Date, staleBefore: Date, limit: number): Promise<InboundEventRow[]> {
    return this.dbService.root
      .select()
      .from(inboundEvents)
      .where(
        or(
          and(eq(inboundEvents.status, 'queued'), lt(inboundEvents.receivedAt, queuedBefore)),
          and(eq(inboundEvents.status, 'processing'), lt(inboundEvents.processedAt, staleBefore)),
        ),
      )
      .orderBy(asc(inboundEvents.receivedAt))
      .limit(limit);
  }

  /** Quarantined events, newest first (ops view); limit + 1 rows. */
  listEvents(filter: { status?: InboundStatus; orgId?: string }, page: { limit: number; after?: Keyset }): Promise<InboundEventRow[]> {
    const after = page.after;
    return this.db
      .select()
      .from(inboundEvents)
      .where(
        and(
          filter.status ? eq(inboundEvents.status, filter.status) : undefined,
          filter.orgId ? eq(inboundEvents.orgId, filter.orgId) : undefined,
          after ? or(lt(inboundEvents.receivedAt, after.at), and(eq(inboundEvents.receivedAt, after.at), lt(inboundEvents.id, after.id))) : undefined,
        ),
      )
      .orderBy(desc(inboundEvents.receivedAt), desc(inboundEvents.id))
      .limit(page.limit + 1);
  }

  // Threads

  /** Binds a new thread to a conversation id; undefined when the thread is bound already. */
  async insertThread(values: typeof channelThreads.$inferInsert): Promise<ChannelThreadRow | undefined> {
    const [row] = await this.db.insert(channelThreads).values(values).onConflictDoNothing().returning();
    return row;
  }

  async findThread(orgId: string, channel: ChannelName, threadKey: string): Promise<ChannelThreadRow | undefined> {
    const [row] = await this.db
      .select()
      .from(channelThreads)
      .where(and(eq(channelThreads.orgId, orgId), eq(channelThreads.channel, channel), eq(channelThreads.threadKey, threadKey)));
    return row;
  }

  async findThreadsByKeys(orgId: string, channel: ChannelName, keys: string[]): Promise<ChannelThreadRow[]> {
    if (keys.length === 0) return [];
    return this.db
      .select()
      .from(channelThreads)
      .where(and(eq(channelThreads.orgId, orgId), eq(channelThreads.channel, channel), inArray(channelThreads.threadKey, keys)));
  }

  /** The thread a conversation was opened for (its reply target). */
  async threadOfConversation(conversationId: string): Promise<ChannelThreadRow | undefined> {
    const [row] = await this.db.select().from(channelThreads).where(eq(channelThreads.conversationId, conversationId)).orderBy(asc(channelThreads.createdAt)).limit(1);
    return row;
  }

  async updateThread(id: string, values: Partial<typeof channelThreads.$inferInsert>): Promise<void> {
    await this.db
      .update(channelThreads)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(channelThreads.id, id));
  }

  // The outbox

  async insertOutbound(values: typeof outboundMessages.$inferInsert): Promise<OutboundRow | undefined> {
    const [row] = await this.db.insert(outboundMessages).values(values).onConflictDoNothing().returning();
    return row;
  }

  /** Takes a due row for sending, under a lease; one sender at a time across instances. */
  async claimOutbound(id: string, leaseMs: number): Promise<OutboundRow | undefined> {
    const [row] = await this.dbService.root
      .update(outboundMessages)
      .set({ status: 'sending', attempts: sql`${outboundMessages.attempts} + 1`, claimedUntil: sql`clock_timestamp() + make_interval(secs => ${leaseMs / 1000})` })
      .where(
        and(
          eq(outboundMessages.id, id),
          lte(outboundMessages.nextAttemptAt, sql`clock_timestamp()`),
          or(eq(outboundMessages.status, 'pending'), and(eq(outboundMessages.status, 'sending'), lt(outboundMessages.claimedUntil, sql`clock_timestamp()`))),
        ),
      )
      .returning();
    return row;
  }

  dueOutbound(limit: number): Promise<OutboundRow[]> {
    return this.dbService.root
      .select()
      .from(outboundMessages)
      .where(
        and(
          lte(outboundMessages.nextAttemptAt, sql`clock_timestamp()`),
          or(eq(outboundMessages.status, 'pending'), and(eq(outboundMessages.status, 'sending'), lt(outboundMessages.claimedUntil, sql`clock_timestamp()`))),
        ),
      )
      .orderBy(asc(outboundMessages.nextAttemptAt))
      .limit(limit);
  }

  async updateOutbound(id: string, values: Partial<typeof outboundMessages.$inferInsert>): Promise<void> {
    await this.dbService.root.update(outboundMessages).set(values).where(eq(outboundMessages.id, id));
  }

  async findOutboundByMessage(messageId: string): Promise<OutboundRow[]> {
    return this.db.select().from(outboundMessages).where(eq(outboundMessages.messageId, messageId));
  }

  // Health

  async lastInbound(orgId: string): Promise<Map<ChannelName, Date>> {
    const rows = await this.db
      .select({ channel: inboundEvents.channel, at: max(inboundEvents.receivedAt) })
      .from(inboundEvents)
      .where(eq(inboundEvents.orgId, orgId))
      .groupBy(inboundEvents.channel);
    return new Map(rows.filter((r) => r.at).map((r) => [r.channel, r.at as Date]));
  }

  async recentQuarantined(orgId: string, since: Date): Promise<Map<ChannelName, number>> {
    const rows = await this.db
      .select({ channel: inboundEvents.channel, n: count() })
      .from(inboundEvents)
      .where(and(eq(inboundEvents.orgId, orgId), eq(inboundEvents.status, 'quarantined'), gt(inboundEvents.receivedAt, since)))
      .groupBy(inboundEvents.channel);
    return new Map(rows.map((r) => [r.channel, Number(r.n)]));
  }

  async outboundStats(orgId: string, since: Date): Promise<Array<{ channel: ChannelName; lastSentAt: Date | null; failures: number; lastError: string | null }>> {
    const rows = await this.db
      .select({
        channel: outboundMessages.channel,
        lastSentAt: max(outboundMessages.sentAt),
        failures: sql<number>`count(*) filter (where ${outboundMessages.lastError} is not null and ${outboundMessages.createdAt} > ${since.toISOString()}::timestamptz)`.mapWith(Number),
        lastError: sql<string | null>`(array_agg(${outboundMessages.lastError} order by ${outboundMessages.createdAt} desc) filter (where ${outboundMessages.lastError} is not null))[1]`,
      })
      .from(outboundMessages)
      .where(eq(outboundMessages.orgId, orgId))
      .groupBy(outboundMessages.channel);
    return rows.map((r) => ({ ...r, lastSentAt: (r.lastSentAt as Date | null) ?? null }));
  }

  // Artifacts

  /** Once per id: a second event carrying the same file of the same message adds nothing. */
  async insertArtifact(values: typeof conversationArtifacts.$inferInsert): Promise<void> {
    await this.db.insert(conversationArtifacts).values(values).onConflictDoNothing({ target: conversationArtifacts.id });
  }
}
