import { Injectable } from '@nestjs/common';
import { and, desc, eq, exists, isNull, sql, type Column, type Placeholder, type SQL } from 'drizzle-orm';
import type { ConversationChannel } from '../../contracts/conversations.js';
import type { Db } from '../../platform/db/database.js';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { olderThan } from '../../platform/db/query-parts.js';
import type { Keyset } from '../../platform/http/pagination.js';
import { grantsCover } from '../experts/index.js';
import { orgLegalNameOf } from '../orgs/index.js';
import { specialistNameOf } from '../specialists/index.js';
import { reachFilter, type Reach } from './conversations.access.js';
import type { QueueFilter } from './conversations.repository.js';
import { conversationMessages as messages, conversations, queueItems, type QueueItemRow } from './conversations.tables.js';

/**
 * Whose attention list: a Reach known without the database (org-wide roles, members), or an
 * Expert, whose grants the list's own statement reads (the same rule as `reaches`).
 */
export type QueueReach = Reach | { kind: 'expert'; expertId: string };

/** An item of the list with what its row shows of its thread, org and Specialist. */
export interface QueueListRow {
  item: QueueItemRow;
  subject: string | null;
  /** Null when the thread is not in the item's org (never, by the foreign keys). */
  channel: ConversationChannel | null;
  orgName: string | null;
  specialistName: string | null;
}

/**
 * The attention list's page in one statement: the newest items the caller reaches (keyset,
 * `queue_items_updated_idx` for the All tab, `queue_items_status_updated_idx` for a status tab),
 * then, for that page only, each item's thread (in the item's org), org name and Specialist name.
 */
@Injectable()
export class ExpertQueueRepository {
  /** The first page of the unfiltered list (opening it), prepared: an org-wide role's (every org), an Expert's. */
  private readonly firstPage: {
    unscopedAll: PreparedStatement<Array<{ page: JsonListRow[] | null }>, { limit: number }>;
    expert: PreparedStatement<Array<{ page: JsonListRow[] | null }>, { expertId: string; limit: number }>;
  };

  constructor(private readonly dbService: DbService) {
    const p = sql.placeholder;
    this.firstPage = {
      unscopedAll: dbService.prepared('queue_first_page_all', (db) => pageQuery(db, undefined, p('limit'))),
      expert: dbService.prepared('queue_first_page_expert', (db) => pageQuery(db, grantsCover(p('expertId'), queueItems), p('limit'))),
    };
  }

  /** The page (limit + 1 items, for the next cursor) of the items the caller reaches that pass the filter. */
  async page(reach: QueueReach, filter: QueueFilter, page: { limit: number; after?: Keyset }): Promise<QueueListRow[]> {
    const limit = page.limit + 1;
    const unfiltered = Object.values(filter).every((v) => v === undefined) && !page.after;
    if (unfiltered && reach.kind === 'platform_wide') return toListRows(await this.firstPage.unscopedAll({ limit }));
    if (unfiltered && reach.kind === 'expert') return toListRows(await this.firstPage.expert({ expertId: reach.expertId, limit }));
    const db = this.dbService.db;
    const where = and(
      reach.kind === 'expert' ? grantsCover(reach.expertId, queueItems) : reachFilter(reach, queueItems),
      filter.status ? eq(queueItems.status, filter.status) : undefined,
      filter.orgId ? eq(queueItems.orgId, filter.orgId) : undefined,
      filter.specialistId ? eq(queueItems.specialistId, filter.specialistId) : undefined,
      filter.conversationId ? eq(queueItems.conversationId, filter.conversationId) : undefined,
      filter.assignee === undefined ? undefined : filter.assignee === null ? isNull(queueItems.assignedExpertId) : eq(queueItems.assignedExpertId, filter.assignee),
      filter.channel
        ? exists(
            db
              .select({ one: sql`1` })
              .from(conversations)
              .where(and(eq(conversations.id, queueItems.conversationId), eq(conversations.channel, filter.channel))),
          )
        : undefined,
      // The full-text search of spec 4.4, over every message of the thread (staff see internal notes).
      filter.q
        ? exists(
            db
              .select({ one: sql`1` })
              .from(messages)
              .where(and(eq(messages.conversationId, queueItems.conversationId), searchMatches(filter.q))),
          )
        : undefined,
      olderThan(queueItems.updatedAt, queueItems.id, page.after),
    );
    return toListRows(await pageQuery(db, where, limit));
  }
}

/**
 * The newest `limit` items that pass `where`, then their threads (in the item's org), org and
 * Specialist names: one row holding the page as a JSON array (a row per item would cost a mapping
 * of every field of every row; its timestamps come as epoch milliseconds, made dates by `toListRows`).
 */
function pageQuery(db: Db, where: SQL | undefined, limit: number | Placeholder) {
  const item = db.select().from(queueItems).where(where).orderBy(desc(queueItems.updatedAt), desc(queueItems.id)).limit(limit).as('item');
  const object = sql`json_build_object(
    'id', ${item.id}, 'orgId', ${item.orgId}, 'conversationId', ${item.conversationId}, 'specialistId', ${item.specialistId},
    'reason', ${item.reason}, 'note', ${item.note}, 'status', ${item.status}, 'slaDeadline', ${epochMs(item.slaDeadline)},
    'deferredUntil', ${epochMs(item.deferredUntil)}, 'assignedExpertId', ${item.assignedExpertId}, 'createdAt', ${epochMs(item.createdAt)},
    'updatedAt', ${epochMs(item.updatedAt)}, 'subject', ${conversations.subject}, 'channel', ${conversations.channel},
    'orgName', ${orgLegalNameOf(item.orgId)}, 'specialistName', ${specialistNameOf(item.specialistId)})`;
  return db
    .select({ page: sql<JsonListRow[] | null>`json_agg(${object} order by ${item.updatedAt} desc, ${item.id} desc)` })
    .from(item)
    .leftJoin(conversations, and(eq(conversations.id, item.conversationId), eq(conversations.orgId, item.orgId)));
}

/** An item of the page as the statement gives it: its timestamps as epoch milliseconds. */
type JsonListRow = Omit<QueueItemRow, 'slaDeadline' | 'deferredUntil' | 'createdAt' | 'updatedAt'> &
  Omit<QueueListRow, 'item'> & { slaDeadline: number | null; deferredUntil: number | null; createdAt: number; updatedAt: number };

/** The page of `pageQuery`'s one row (each field named: a rest pattern over a parsed object is far slower). */
function toListRows(result: Array<{ page: JsonListRow[] | null }>): QueueListRow[] {
  return (result[0]?.page ?? []).map((r) => ({
    item: {
      id: r.id,
      orgId: r.orgId,
      conversationId: r.conversationId,
      specialistId: r.specialistId,
      reason: r.reason,
      note: r.note,
      status: r.status,
      slaDeadline: r.slaDeadline === null ? null : new Date(r.slaDeadline),
      deferredUntil: r.deferredUntil === null ? null : new Date(r.deferredUntil),
      assignedExpertId: r.assignedExpertId,
      createdAt: new Date(r.createdAt),
      updatedAt: new Date(r.updatedAt),
    },
    subject: r.subject,
    channel: r.channel,
    orgName: r.orgName,
    specialistName: r.specialistName,
  }));
}

/**
 * A timestamp as whole epoch milliseconds (cut, not rounded: what a JS Date of the column's text
 * keeps), so the page's dates are made from numbers, not parsed from text.
 */
function epochMs(column: SQL.Aliased | Column | SQL): SQL {
  return sql`floor(extract(epoch from ${column}) * 1000)`;
}

/** A message matching the search words (websearch syntax). */
function searchMatches(q: string): SQL {
  return sql`${messages.search} @@ websearch_to_tsquery('english', ${q})`;
}
