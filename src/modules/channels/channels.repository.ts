import { Injectable } from '@nestjs/common';
import { and, asc, count, desc, eq, gt, inArray, lt, lte, max, or, sql, type SQL } from 'drizzle-orm';
import type { ChannelName } from '../../contracts/channels.js';
import { systemNow } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { olderThan } from '../../platform/db/query-parts.js';
import type { Keyset } from '../../platform/http/pagination.js';
import {
  channelBindings,
  channelReplyTargets,
  channelThreads,
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
  type OutboundStatus,
} from './channels.tables.js';

/**
 * Advisory lock key of the inbound queue's admission (count, then insert): taken exclusively by an
 * admission near the limit, shared by the striped admissions far below it.
 */
const INBOUND_ADMISSION_LOCK = 7_410_226;

/**
 * Admission batches far below the limit run side by side (each instance has one in flight), each
 * holding one of these stripes (the two-key advisory locks `(INBOUND_ADMISSION_LOCK, 1..n)`) until
 * its transaction ends: at most this many batches are uncommitted at once.
 */
export const ADMISSION_STRIPES = 8;

/** At most this many concurrent calls are admitted by one statement (one instance's group commit). */
export const ADMISSION_BATCH = 16;

/**
 * At most this many events are uncommitted in striped batches at once: a striped batch keeps events
 * only while the count it saw plus its own stays this far below the limit, so together they cannot
 * take the queue past it.
 */
export const ADMISSION_STRIPED_ROOM = ADMISSION_STRIPES * ADMISSION_BATCH;

/** How an admission went: kept (its id), the same event kept before, or refused at the depth it counted. */
export type Admission = { kept: true; id: string } | { kept: false; full: boolean };

/**
 * Channel queries. Tenant rows (integrations, bindings, threads, reply targets, the outbox) are read
 * and written in an OrgScope; bindings are the only way in from outside. The inbound queue (vendor
 * traffic, org unknown until routed) and the platform-wide sweeps (`unscoped*`) take none.
 */
@Injectable()
export class ChannelsRepository {
  constructor(private readonly dbService: DbService) {}

  private get db() {
    return this.dbService.db;
  }

  // Integrations and bindings

  async insertIntegration(scope: OrgScope, values: Omit<typeof orgIntegrations.$inferInsert, 'orgId'>): Promise<IntegrationRow> {
    const [row] = await this.db
      .insert(orgIntegrations)
      .values({ ...values, orgId: scope.orgId })
      .returning();
    return row!;
  }

  async updateIntegration(scope: OrgScope, id: string, values: Partial<typeof orgIntegrations.$inferInsert>): Promise<IntegrationRow | undefined> {
    const [row] = await this.db
      .update(orgIntegrations)
      .set({ ...values, updatedAt: systemNow() })
      .where(and(inOrg(orgIntegrations.orgId, scope), eq(orgIntegrations.id, id)))
      .returning();
    return row;
  }

  async deleteIntegration(scope: OrgScope, id: string): Promise<IntegrationRow | undefined> {
    const [row] = await this.db
      .delete(orgIntegrations)
      .where(and(inOrg(orgIntegrations.orgId, scope), eq(orgIntegrations.id, id)))
      .returning();
    return row;
  }

  listIntegrations(scope: OrgScope): Promise<IntegrationRow[]> {
    return this.db.select().from(orgIntegrations).where(inOrg(orgIntegrations.orgId, scope)).orderBy(asc(orgIntegrations.createdAt));
  }

  async findIntegration(scope: OrgScope, id: string): Promise<IntegrationRow | undefined> {
    const [row] = await this.db
      .select()
      .from(orgIntegrations)
      .where(and(inOrg(orgIntegrations.orgId, scope), eq(orgIntegrations.id, id)));
    return row;
  }

  /** By id alone, in any org: an event whose integration was already proven at the door (messaging-b) names it. */
  async unscopedFindIntegrationById(id: string): Promise<IntegrationRow | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    const [row] = await this.db.select().from(orgIntegrations).where(eq(orgIntegrations.id, id));
    return row;
  }

  async findIntegrationByChannel(scope: OrgScope, channel: ChannelName): Promise<IntegrationRow | undefined> {
    const [row] = await this.db
      .select()
      .from(orgIntegrations)
      .where(and(inOrg(orgIntegrations.orgId, scope), eq(orgIntegrations.channel, channel)));
    return row;
  }

  /** Replaces an integration's bindings; a value verified for another integration is a unique violation. */
  async replaceBindings(scope: OrgScope, integrationId: string, channel: ChannelName, bindings: Array<{ kind: BindingKind; value: string; verified: boolean }>): Promise<void> {
    await this.db.delete(channelBindings).where(and(inOrg(channelBindings.orgId, scope), eq(channelBindings.integrationId, integrationId)));
    if (bindings.length > 0) await this.db.insert(channelBindings).values(bindings.map((b) => ({ ...b, channel, integrationId, orgId: scope.orgId })));
  }

  /** The bindings of one or more of the org's integrations (by the integration index). */
  bindingsOf(scope: OrgScope, integrationIds: string | string[]): Promise<ChannelBindingRow[]> {
    const ids = Array.isArray(integrationIds) ? integrationIds : [integrationIds];
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .select()
      .from(channelBindings)
      .where(and(inOrg(channelBindings.orgId, scope), inArray(channelBindings.integrationId, ids)));
  }

  /**
   * The integrations that claim a value (one indexed lookup on the binding's key): the verified
   * one first, then pending claims oldest first. Platform wide: vendor traffic names a source, not
   * an org; this finds which org (if any) holds it.
   */
  unscopedBindingsOfValue(channel: ChannelName, kind: BindingKind, value: string, limit = 50): Promise<Array<{ binding: ChannelBindingRow; integration: IntegrationRow }>> {
    return this.db
      .select({ binding: channelBindings, integration: orgIntegrations })
      .from(channelBindings)
      .innerJoin(orgIntegrations, eq(orgIntegrations.id, channelBindings.integrationId))
      .where(and(eq(channelBindings.channel, channel), eq(channelBindings.kind, kind), eq(channelBindings.value, value)))
      .orderBy(desc(channelBindings.verified), asc(orgIntegrations.createdAt))
      .limit(limit);
  }

  /** Marks an integration's bindings verified (all, or the one named); a value verified elsewhere is a unique violation. */
  async verifyBindings(scope: OrgScope, integrationId: string, only?: { kind: BindingKind; value: string }): Promise<void> {
    await this.db
      .update(channelBindings)
      .set({ verified: true })
      .where(
        and(inOrg(channelBindings.orgId, scope), eq(channelBindings.integrationId, integrationId), only ? and(eq(channelBindings.kind, only.kind), eq(channelBindings.value, only.value)) : undefined),
      );
  }

  // The inbound queue: vendor traffic whose org is unknown until the event is routed, so these
  // functions are platform wide (`unscoped*`, no OrgScope; an event's orgId is written once it is resolved).

  /** Keeps a verified call; undefined when the same event was received before. */
  async unscopedInsertEvent(values: typeof inboundEvents.$inferInsert): Promise<InboundEventRow | undefined> {
    const [row] = await this.db.insert(inboundEvents).values(values).onConflictDoNothing().returning();
    return row;
  }

  async unscopedFindEventByKey(channel: ChannelName, eventKey: string): Promise<InboundEventRow | undefined> {
    const [row] = await this.db
      .select()
      .from(inboundEvents)
      .where(and(eq(inboundEvents.channel, channel), eq(inboundEvents.eventKey, eventKey)));
    return row;
  }

  /** Takes a queued event (or one whose worker died mid-way) for processing; one taker at a time. */
  async unscopedClaimEvent(id: string, staleBefore: Date): Promise<InboundEventRow | undefined> {
    const [row] = await this.dbService.root
      .update(inboundEvents)
      .set({ status: 'processing', attempts: sql`${inboundEvents.attempts} + 1`, processedAt: sql`clock_timestamp()` })
      .where(and(eq(inboundEvents.id, id), or(eq(inboundEvents.status, 'queued'), and(eq(inboundEvents.status, 'processing'), lt(inboundEvents.processedAt, staleBefore)))))
      .returning();
    return row;
  }

  async unscopedFinishEvent(
    id: string,
    status: InboundStatus,
    fields: Partial<Pick<InboundEventRow, 'reason' | 'orgId' | 'integrationId' | 'conversationId' | 'messageId' | 'lastError' | 'body'>> = {},
  ): Promise<void> {
    await this.db
      .update(inboundEvents)
      .set({ status, ...fields, processedAt: sql`clock_timestamp()` })
      .where(eq(inboundEvents.id, id));
  }

  /**
   * Keeps verified calls while the queue has room, in one round trip for the whole batch: the
   * admission's locks, then the count and the insert, sent together and committed together
   * (`DbService.script`). `exclusive`: alone (the depth backpressure compares is the whole
   * queue's, so one key for all); `striped`: beside the other striped admissions, holding a stripe
   * (waiting for one when all are taken). The count is a statement of its own after the locks, so
   * it sees every admission that committed before. The n-th new event of the batch (in order; an
   * event kept before, or twice in the batch, is not new) is kept when the count plus n is at most
   * `room`. `jobsFor` writes the kept events' jobs in the same statement (given the kept ids), so a
   * job exists if and only if its event was kept by this call. One admission per value, in order:
   * not kept and `full` when there was no room for it, else the same event was kept before.
   */
  async unscopedAdmitEvents(
    mode: 'exclusive' | 'striped',
    values: Array<{ channel: ChannelName; eventKey: string; body: string; meta: Record<string, unknown> }>,
    room: number,
    jobsFor: (keptIds: SQL) => SQL,
  ): Promise<Admission[]> {
    const enter =
      mode === 'exclusive'
        ? sql`select pg_advisory_xact_lock(${INBOUND_ADMISSION_LOCK}::bigint)`
        : sql`select pg_advisory_xact_lock_shared(${INBOUND_ADMISSION_LOCK}::bigint) is null as shared,
            case when (select s from generate_series(1, ${ADMISSION_STRIPES}::int) s where pg_try_advisory_xact_lock(${INBOUND_ADMISSION_LOCK}::int, s) limit 1) is not null then true
            else pg_advisory_xact_lock(${INBOUND_ADMISSION_LOCK}::int, 1 + floor(random() * ${ADMISSION_STRIPES}::int)::int) is null end as striped`;
    const incoming = JSON.stringify(values.map((v) => ({ channel: v.channel, event_key: v.eventKey, body: v.body, meta: v.meta })));
    // Both kept prepared on each connection: an admission is parsed and planned once per connection.
    const rows = await this.dbService.script<{ id: string | null; full: boolean }>([
      { name: `inbound_admission_enter_${mode}`, sql: enter },
      {
        name: 'inbound_admission_keep_batch',
        sql: sql`
        with depth as (
          select count(*)::int as n from (select 1 from ${inboundEvents} where ${inboundEvents.status} in ('queued', 'processing') limit ${room}::int) open_events
        ), incoming as (
          select * from rows from (jsonb_to_recordset(${incoming}::jsonb) as (channel text, event_key text, body text, meta jsonb)) with ordinality as t(channel, event_key, body, meta, i)
        ), fresh as (
          select distinct on (channel, event_key) * from incoming
          where not exists (select 1 from ${inboundEvents} e where e.channel = incoming.channel and e.event_key = incoming.event_key)
          order by channel, event_key, i
        ), ranked as (
          select fresh.*, (select n from depth) + row_number() over (order by i) <= ${room}::int as fits from fresh
        ), kept as (
          insert into ${inboundEvents} (channel, event_key, body, meta)
          select channel, event_key, body, meta from ranked where fits order by i
          on conflict (channel, event_key) do nothing
          returning id, channel, event_key
        ), queued as (
          ${jobsFor(sql`select id from kept`)}
        )
        select kept.id, coalesce(ranked.i = incoming.i and not ranked.fits, false) as full
        from incoming
        left join ranked on ranked.channel = incoming.channel and ranked.event_key = incoming.event_key
        left join kept on kept.channel = incoming.channel and kept.event_key = incoming.event_key and ranked.i = incoming.i
        order by incoming.i`,
      },
    ]);
    return rows.map((row) => (row.id ? { kept: true, id: row.id } : { kept: false, full: row.full }));
  }

  /** The open depth per channel and status, for the metrics (one query over the open-events index). Platform wide: the queue's metrics. */
  async unscopedOpenDepthByChannel(): Promise<Array<{ channel: ChannelName; status: 'queued' | 'processing'; n: number }>> {
    const rows = await this.dbService.root
      .select({ channel: inboundEvents.channel, status: inboundEvents.status, n: count() })
      .from(inboundEvents)
      .where(inArray(inboundEvents.status, ['queued', 'processing']))
      .groupBy(inboundEvents.channel, inboundEvents.status);
    return rows.map((r) => ({ channel: r.channel, status: r.status as 'queued' | 'processing', n: Number(r.n) }));
  }

  /** Queued events nobody took (their job was lost) and processing ones whose worker died. Platform wide: the recovery sweep. */
  unscopedStrandedEvents(queuedBefore: Date, staleBefore: Date, limit: number): Promise<InboundEventRow[]> {
    return this.dbService.root
      .select()
      .from(inboundEvents)
      .where(or(and(eq(inboundEvents.status, 'queued'), lt(inboundEvents.receivedAt, queuedBefore)), and(eq(inboundEvents.status, 'processing'), lt(inboundEvents.processedAt, staleBefore))))
      .orderBy(asc(inboundEvents.receivedAt))
      .limit(limit);
  }

  /** Quarantined events of every org, or of the one `orgId` names, newest first (the ops view, org-wide roles only); limit + 1 rows. */
  unscopedListEvents(filter: { status?: InboundStatus; orgId?: string }, page: { limit: number; after?: Keyset }): Promise<InboundEventRow[]> {
    return this.db
      .select()
      .from(inboundEvents)
      .where(
        and(
          filter.status ? eq(inboundEvents.status, filter.status) : undefined,
          filter.orgId ? eq(inboundEvents.orgId, filter.orgId) : undefined,
          olderThan(inboundEvents.receivedAt, inboundEvents.id, page.after),
        ),
      )
      .orderBy(desc(inboundEvents.receivedAt), desc(inboundEvents.id))
      .limit(page.limit + 1);
  }

  // Threads

  /** Binds a new thread of the org to a conversation id; undefined when the thread is bound already. */
  async insertThread(scope: OrgScope, values: Omit<typeof channelThreads.$inferInsert, 'orgId'>): Promise<ChannelThreadRow | undefined> {
    const [row] = await this.db
      .insert(channelThreads)
      .values({ ...values, orgId: scope.orgId })
      .onConflictDoNothing()
      .returning();
    return row;
  }

  async findThread(scope: OrgScope, channel: ChannelName, threadKey: string): Promise<ChannelThreadRow | undefined> {
    const [row] = await this.db
      .select()
      .from(channelThreads)
      .where(and(inOrg(channelThreads.orgId, scope), eq(channelThreads.channel, channel), eq(channelThreads.threadKey, threadKey)));
    return row;
  }

  async findThreadsByKeys(scope: OrgScope, channel: ChannelName, keys: string[]): Promise<ChannelThreadRow[]> {
    if (keys.length === 0) return [];
    return this.db
      .select()
      .from(channelThreads)
      .where(and(inOrg(channelThreads.orgId, scope), eq(channelThreads.channel, channel), inArray(channelThreads.threadKey, keys)));
  }

  /** The thread a conversation was opened for (the reply target of conversations older than per-message targets). */
  async threadOfConversation(scope: OrgScope, conversationId: string): Promise<ChannelThreadRow | undefined> {
    const [row] = await this.db
      .select()
      .from(channelThreads)
      .where(and(inOrg(channelThreads.orgId, scope), eq(channelThreads.conversationId, conversationId)))
      .orderBy(asc(channelThreads.createdAt))
      .limit(1);
    return row;
  }

  // Reply targets

  /** Keeps where the reply to one inbound message goes; a redelivery keeps the first. */
  async keepReplyTarget(scope: OrgScope, values: Omit<typeof channelReplyTargets.$inferInsert, 'orgId'>): Promise<void> {
    await this.db
      .insert(channelReplyTargets)
      .values({ ...values, orgId: scope.orgId })
      .onConflictDoNothing();
  }

  /** The target of one client message of a conversation (by the message's idempotency key). */
  async replyTargetOf(scope: OrgScope, conversationId: string, messageKey: string): Promise<Record<string, unknown> | undefined> {
    const [row] = await this.db
      .select({ target: channelReplyTargets.target })
      .from(channelReplyTargets)
      .where(and(inOrg(channelReplyTargets.orgId, scope), eq(channelReplyTargets.conversationId, conversationId), eq(channelReplyTargets.messageKey, messageKey)));
    return row?.target;
  }

  /** The target of the conversation's latest inbound message. */
  async latestReplyTarget(scope: OrgScope, conversationId: string): Promise<Record<string, unknown> | undefined> {
    const [row] = await this.db
      .select({ target: channelReplyTargets.target })
      .from(channelReplyTargets)
      .where(and(inOrg(channelReplyTargets.orgId, scope), eq(channelReplyTargets.conversationId, conversationId)))
      .orderBy(desc(channelReplyTargets.createdAt), desc(channelReplyTargets.id))
      .limit(1);
    return row?.target;
  }

  async updateThread(scope: OrgScope, id: string, values: Partial<Omit<typeof channelThreads.$inferInsert, 'orgId'>>): Promise<void> {
    await this.db
      .update(channelThreads)
      .set({ ...values, updatedAt: systemNow() })
      .where(and(inOrg(channelThreads.orgId, scope), eq(channelThreads.id, id)));
  }

  // The outbox

  async insertOutbound(scope: OrgScope, values: Omit<typeof outboundMessages.$inferInsert, 'orgId'>): Promise<OutboundRow | undefined> {
    const [row] = await this.db
      .insert(outboundMessages)
      .values({ ...values, orgId: scope.orgId })
      .onConflictDoNothing()
      .returning();
    return row;
  }

  /** Takes a due row for sending, under a lease; one sender at a time across instances. */
  async claimOutbound(scope: OrgScope, id: string, leaseMs: number): Promise<OutboundRow | undefined> {
    const [row] = await this.dbService.root
      .update(outboundMessages)
      .set({ status: 'sending', attempts: sql`${outboundMessages.attempts} + 1`, claimedUntil: sql`clock_timestamp() + make_interval(secs => ${leaseMs / 1000})` })
      .where(
        and(
          inOrg(outboundMessages.orgId, scope),
          eq(outboundMessages.id, id),
          lte(outboundMessages.nextAttemptAt, sql`clock_timestamp()`),
          or(eq(outboundMessages.status, 'pending'), and(eq(outboundMessages.status, 'sending'), lt(outboundMessages.claimedUntil, sql`clock_timestamp()`))),
        ),
      )
      .returning();
    return row;
  }

  /** Due rows of every org: platform wide (the dispatcher's sweep; each row is then sent in its own org). */
  unscopedDueOutbound(limit: number): Promise<OutboundRow[]> {
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

  /** Outside a transaction on its own; inside one (a reply failed for good, with its record) part of it. */
  async updateOutbound(scope: OrgScope, id: string, values: Partial<Omit<typeof outboundMessages.$inferInsert, 'orgId'>>): Promise<void> {
    await this.db
      .update(outboundMessages)
      .set(values)
      .where(and(inOrg(outboundMessages.orgId, scope), eq(outboundMessages.id, id)));
  }

  async findOutboundByMessage(scope: OrgScope, messageId: string): Promise<OutboundRow[]> {
    return this.db
      .select()
      .from(outboundMessages)
      .where(and(inOrg(outboundMessages.orgId, scope), eq(outboundMessages.messageId, messageId)));
  }

  /** An org's held email replies (spec 3.3), oldest first: the order they were written; only those written before `before` when given. */
  heldOutbound(scope: OrgScope, before?: Date): Promise<OutboundRow[]> {
    return this.db
      .select()
      .from(outboundMessages)
      .where(and(inOrg(outboundMessages.orgId, scope), eq(outboundMessages.status, 'held'), eq(outboundMessages.channel, 'email'), before ? lt(outboundMessages.createdAt, before) : undefined))
      .orderBy(asc(outboundMessages.createdAt), asc(outboundMessages.id));
  }

  /** A held row locked for the caller's transaction; undefined once another sender has taken it. */
  async lockHeld(scope: OrgScope, id: string): Promise<OutboundRow | undefined> {
    const [row] = await this.db
      .select()
      .from(outboundMessages)
      .where(and(inOrg(outboundMessages.orgId, scope), eq(outboundMessages.id, id), eq(outboundMessages.status, 'held')))
      .for('update');
    return row;
  }

  /** Sent, in the caller's transaction (the send itself was written in it). */
  async markOutboundSent(scope: OrgScope, id: string, externalId: string | null): Promise<void> {
    await this.db
      .update(outboundMessages)
      .set({ status: 'sent', sentAt: systemNow(), claimedUntil: null, externalId, lastError: null, attempts: sql`${outboundMessages.attempts} + 1` })
      .where(and(inOrg(outboundMessages.orgId, scope), eq(outboundMessages.id, id)));
  }

  /** Every org and sending address that has held mail: platform wide (the release sweep). */
  unscopedHeldSenders(): Promise<Array<{ orgId: string; from: string | null }>> {
    return this.db
      .selectDistinct({ orgId: outboundMessages.orgId, from: sql<string | null>`${outboundMessages.target} ->> 'from'` })
      .from(outboundMessages)
      .where(eq(outboundMessages.status, 'held'));
  }

  /** The outbox rows of these messages of the org: how far each got. */
  outboundStatuses(scope: OrgScope, messageIds: string[]): Promise<Array<{ messageId: string; status: OutboundStatus }>> {
    if (messageIds.length === 0) return Promise.resolve([]);
    return this.db
      .select({ messageId: outboundMessages.messageId, status: outboundMessages.status })
      .from(outboundMessages)
      .where(and(inOrg(outboundMessages.orgId, scope), inArray(outboundMessages.messageId, messageIds)));
  }

  // Health

  async lastInbound(scope: OrgScope): Promise<Map<ChannelName, Date>> {
    const rows = await this.db
      .select({ channel: inboundEvents.channel, at: max(inboundEvents.receivedAt) })
      .from(inboundEvents)
      .where(inOrg(inboundEvents.orgId, scope))
      .groupBy(inboundEvents.channel);
    return new Map(rows.filter((r) => r.at).map((r) => [r.channel, r.at as Date]));
  }

  async recentQuarantined(scope: OrgScope, since: Date): Promise<Map<ChannelName, number>> {
    const rows = await this.db
      .select({ channel: inboundEvents.channel, n: count() })
      .from(inboundEvents)
      .where(and(inOrg(inboundEvents.orgId, scope), eq(inboundEvents.status, 'quarantined'), gt(inboundEvents.receivedAt, since)))
      .groupBy(inboundEvents.channel);
    return new Map(rows.map((r) => [r.channel, Number(r.n)]));
  }

  /**
   * Per channel: the last send, the rows with an error since `since` and the latest error, the
   * status of the newest reply that finished (`sent` or `failed`), and how many wait for a retry
   * after an error.
   */
  async outboundStats(
    scope: OrgScope,
    since: Date,
  ): Promise<Array<{ channel: ChannelName; lastSentAt: Date | null; failures: number; lastError: string | null; lastFinished: string | null; retrying: number }>> {
    const rows = await this.db
      .select({
        channel: outboundMessages.channel,
        lastSentAt: max(outboundMessages.sentAt),
        failures: sql<number>`count(*) filter (where ${outboundMessages.lastError} is not null and ${outboundMessages.createdAt} > ${since.toISOString()}::timestamptz)`.mapWith(Number),
        lastError: sql<string | null>`(array_agg(${outboundMessages.lastError} order by ${outboundMessages.createdAt} desc) filter (where ${outboundMessages.lastError} is not null))[1]`,
        lastFinished: sql<
          string | null
        >`(array_agg(${outboundMessages.status} order by ${outboundMessages.createdAt} desc, ${outboundMessages.id} desc) filter (where ${outboundMessages.status} in ('sent', 'failed')))[1]`,
        retrying: sql<number>`count(*) filter (where ${outboundMessages.status} in ('pending', 'sending') and ${outboundMessages.lastError} is not null)`.mapWith(Number),
      })
      .from(outboundMessages)
      .where(inOrg(outboundMessages.orgId, scope))
      .groupBy(outboundMessages.channel);
    return rows.map((r) => ({ ...r, lastSentAt: (r.lastSentAt as Date | null) ?? null }));
  }
}
