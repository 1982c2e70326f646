import { Injectable } from '@nestjs/common';
import { and, eq, gte, lt, sql } from 'drizzle-orm';
import { DbService } from '../../platform/db/db.service.js';
import { conversationMessages, queueItems } from './conversations.tables.js';

const count = (where: ReturnType<typeof sql>) => sql<number>`count(*) filter (where ${where})::int`.mapWith(Number);

/** Read-only aggregates for the ops panels (spec 8.1): message usage and Expert workload. */
@Injectable()
export class ConversationStatsRepository {
  constructor(private readonly dbService: DbService) {}

  /** Messages of one org in [from, to) per UTC hour or day (index conversation_messages_org_idx). */
  async messagesPer(orgId: string, unit: 'hour' | 'day', from: Date, to: Date): Promise<Array<{ at: Date; clientMessages: number; specialistMessages: number }>> {
    const bucket = sql<Date>`date_trunc(${unit}, ${conversationMessages.createdAt} at time zone 'UTC') at time zone 'UTC'`.mapWith((v: string | Date) => new Date(v));
    return this.dbService.db
      .select({
        at: bucket,
        clientMessages: count(sql`${conversationMessages.role} = 'client'`),
        specialistMessages: count(sql`${conversationMessages.role} in ('specialist', 'expert')`),
      })
      .from(conversationMessages)
      .where(and(eq(conversationMessages.orgId, orgId), gte(conversationMessages.createdAt, from), lt(conversationMessages.createdAt, to), eq(conversationMessages.isInternal, false)))
      .groupBy(sql`1`)
      .orderBy(sql`1`);
  }

  /** Attention-list items raised in [from, to) per Specialist, and how long resolved ones took. */
  async workloadPerSpecialist(from: Date, to: Date) {
    return this.dbService.db
      .select({
        specialistId: queueItems.specialistId,
        items: sql<number>`count(*)::int`.mapWith(Number),
        open: count(sql`${queueItems.status} <> 'resolved'`),
        resolved: count(sql`${queueItems.status} = 'resolved'`),
        escalations: count(sql`${queueItems.reason} = 'escalation'`),
        agentFailures: count(sql`${queueItems.reason} = 'agent_failure'`),
        avgHandleSeconds: sql<number | null>`avg(extract(epoch from ${queueItems.updatedAt} - ${queueItems.createdAt})) filter (where ${queueItems.status} = 'resolved')`.mapWith((v: string | null) => (v === null ? null : Number(v))),
      })
      .from(queueItems)
      .where(and(gte(queueItems.createdAt, from), lt(queueItems.createdAt, to)))
      .groupBy(queueItems.specialistId);
  }
}
