import { Injectable } from '@nestjs/common';
import { and, eq, gte, lt, notExists, sql, type SQL } from 'drizzle-orm';
import { DbService } from '../../platform/db/db.service.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { conversationMessages, conversations, messageRevisions, queueItems } from './conversations.tables.js';

const count = (where: ReturnType<typeof sql>) => sql<number>`count(*) filter (where ${where})::int`.mapWith(Number);

/** Read-only aggregates for the ops panels (spec 8.1): message usage, Expert workload, autonomous handling. */
@Injectable()
export class ConversationStatsRepository {
  constructor(private readonly dbService: DbService) {}

  /** Messages of one org in [from, to) per UTC hour or day (index conversation_messages_org_idx). */
  async messagesPer(scope: OrgScope, unit: 'hour' | 'day', from: Date, to: Date): Promise<Array<{ at: Date; clientMessages: number; specialistMessages: number }>> {
    const bucket = sql<Date>`date_trunc(${unit}, ${conversationMessages.createdAt} at time zone 'UTC') at time zone 'UTC'`.mapWith((v: string | Date) => new Date(v));
    return this.dbService.db
      .select({
        at: bucket,
        clientMessages: count(sql`${conversationMessages.role} = 'client'`),
        specialistMessages: count(sql`${conversationMessages.role} in ('specialist', 'expert')`),
      })
      .from(conversationMessages)
      .where(and(inOrg(conversationMessages.orgId, scope), gte(conversationMessages.createdAt, from), lt(conversationMessages.createdAt, to), eq(conversationMessages.isInternal, false)))
      .groupBy(sql`1`)
      .orderBy(sql`1`);
  }

  /** Attention-list items raised in [from, to) per Specialist, and how long resolved ones took: platform wide (the ops workload panel). */
  async unscopedWorkloadPerSpecialist(from: Date, to: Date) {
    return this.dbService.db
      .select({
        specialistId: queueItems.specialistId,
        items: sql<number>`count(*)::int`.mapWith(Number),
        open: count(sql`${queueItems.status} <> 'resolved'`),
        resolved: count(sql`${queueItems.status} = 'resolved'`),
        escalations: count(sql`${queueItems.reason} = 'escalation'`),
        agentFailures: count(sql`${queueItems.reason} = 'agent_failure'`),
        avgHandleSeconds: sql<number | null>`avg(extract(epoch from ${queueItems.updatedAt} - ${queueItems.createdAt})) filter (where ${queueItems.status} = 'resolved')`.mapWith((v: string | null) =>
          v === null ? null : Number(v),
        ),
      })
      .from(queueItems)
      .where(and(gte(queueItems.createdAt, from), lt(queueItems.createdAt, to)))
      .groupBy(queueItems.specialistId);
  }

  /**
   * Conversations of one org created in [from, to) per Specialist: all of them, those the
   * Specialist answered, and those it answered with no Expert: no visible Expert message, no
   * correction of a message, no attention-list item (docs/conversations.md).
   */
  handlingPer(scope: OrgScope, from: Date, to: Date) {
    return this.handling(inOrg(conversations.orgId, scope), from, to);
  }

  /** The same for every org, per org and Specialist: platform wide (the ops analytics panel). */
  unscopedHandlingPer(from: Date, to: Date) {
    return this.handling(undefined, from, to);
  }

  private handling(orgCondition: SQL | undefined, from: Date, to: Date) {
    const db = this.dbService.db;
    const one = sql`1`;
    const noExpert = and(
      eq(conversations.autoResponded, true),
      notExists(
        db
          .select({ one })
          .from(conversationMessages)
          .where(and(eq(conversationMessages.conversationId, conversations.id), eq(conversationMessages.role, 'expert'), eq(conversationMessages.isInternal, false))),
      ),
      notExists(
        db
          .select({ one })
          .from(messageRevisions)
          .innerJoin(conversationMessages, eq(conversationMessages.id, messageRevisions.messageId))
          .where(eq(conversationMessages.conversationId, conversations.id)),
      ),
      notExists(db.select({ one }).from(queueItems).where(eq(queueItems.conversationId, conversations.id))),
    )!;
    return db
      .select({
        orgId: conversations.orgId,
        specialistId: conversations.specialistId,
        conversations: sql<number>`count(*)::int`.mapWith(Number),
        autoResponded: count(sql`${conversations.autoResponded}`),
        autonomous: count(noExpert),
      })
      .from(conversations)
      .where(and(orgCondition, gte(conversations.createdAt, from), lt(conversations.createdAt, to)))
      .groupBy(conversations.orgId, conversations.specialistId);
  }
}
