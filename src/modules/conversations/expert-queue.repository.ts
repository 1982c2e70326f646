import { Injectable } from '@nestjs/common';
import { and, desc, eq, exists, getTableColumns, isNull, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { QueueItemDto } from '../../contracts/conversations.js';
import type { Db } from '../../platform/db/database.js';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { isoText, olderThan } from '../../platform/db/query-parts.js';
import { JsonText } from '../../platform/http/json-text.js';
import type { Keyset } from '../../platform/http/pagination.js';
import { grantsCover } from '../experts/index.js';
import { orgLegalNames } from '../orgs/index.js';
import { specialistNames } from '../specialists/index.js';
import { reachFilter, type Reach } from './conversations.access.js';
import type { QueueFilter } from './conversations.repository.js';
import { conversationMessages as messages, messageWords, queueItems } from './conversations.tables.js';

/**
 * Whose attention list: a Reach known without the database (org-wide roles, members), or an
 * Expert, whose grants the list's own statement reads (the same rule as `reaches`).
 */
export type QueueReach = Reach | { kind: 'expert'; expertId: string };

/**
 * A page of the list as the list answers it: its items (at most the page's limit) already written
 * as the JSON array of their `QueueItemDto`s, and the keyset of its last item when a further item
 * exists (the next cursor's).
 */
export interface QueuePage {
  items: JsonText<QueueItemDto[]>;
  next: Keyset | undefined;
}

/**
 * The attention list's page in one statement: the newest items the caller reaches (keyset,
 * `queue_items_updated_idx` for the All tab, `queue_items_status_updated_idx` for a status tab),
 * then, for that page only, each item's org name and Specialist name, written by the database as
 * the JSON of the items' DTOs.
 */
@Injectable()
export class ExpertQueueRepository {
  /** The first page of the unfiltered list (opening it), prepared: an org-wide role's (every org), an Expert's. */
  private readonly firstPage: {
    unscopedAll: PreparedStatement<PageRow[], { limit: number }>;
    expert: PreparedStatement<PageRow[], { expertId: string; limit: number }>;
  };

  constructor(private readonly dbService: DbService) {
    const p = sql.placeholder;
    this.firstPage = {
      unscopedAll: dbService.prepared('queue_first_page_all', (db) => pageQuery(db, undefined, p('limit'))),
      expert: dbService.prepared('queue_first_page_expert', (db) => pageQuery(db, grantsCover(p('expertId'), queueItems), p('limit'))),
    };
  }

  /** The page of the items the caller reaches that pass the filter (limit + 1 read, for the next cursor). */
  async page(reach: QueueReach, filter: QueueFilter, page: { limit: number; after?: Keyset }): Promise<QueuePage> {
    const limit = page.limit + 1;
    const unfiltered = Object.values(filter).every((v) => v === undefined) && !page.after;
    if (unfiltered && reach.kind === 'platform_wide') return toQueuePage(await this.firstPage.unscopedAll({ limit }));
    if (unfiltered && reach.kind === 'expert') return toQueuePage(await this.firstPage.expert({ expertId: reach.expertId, limit }));
    const db = this.dbService.db;
    const where = and(
      reach.kind === 'expert' ? grantsCover(reach.expertId, queueItems) : reachFilter(reach, queueItems),
      filter.status ? eq(queueItems.status, filter.status) : undefined,
      filter.orgId ? eq(queueItems.orgId, filter.orgId) : undefined,
      filter.specialistId ? eq(queueItems.specialistId, filter.specialistId) : undefined,
      filter.conversationId ? eq(queueItems.conversationId, filter.conversationId) : undefined,
      filter.assignee === undefined ? undefined : filter.assignee === null ? isNull(queueItems.assignedExpertId) : eq(queueItems.assignedExpertId, filter.assignee),
      filter.channel ? eq(queueItems.channel, filter.channel) : undefined,
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
    return toQueuePage(await pageQuery(db, where, limit));
  }
}

/**
 * The newest `limit` items that pass `where` (the page's size and one more, which only says that a
 * further item exists), then the page's items' org and Specialist names (the thread's subject
 * and channel are the item's own): one row holding the page as the JSON text of its items'
 * `QueueItemDto`s (the fields and values `toQueueItemDto` gives: `e2e/expert-queue-json` holds
 * them equal), sent to the client as it is, and the page's last item's keyset when the further
 * item exists.
 */
function pageQuery(db: Db, where: SQL | undefined, limit: number | Placeholder) {
  const item = db
    .select({ ...getTableColumns(queueItems), rank: sql<number>`row_number() over (order by ${queueItems.updatedAt} desc, ${queueItems.id} desc)`.as('rank') })
    .from(queueItems)
    .where(where)
    .orderBy(desc(queueItems.updatedAt), desc(queueItems.id))
    .limit(limit)
    .as('item');
  const dto = sql`json_build_object(
    'id', ${item.id}, 'conversationId', ${item.conversationId}, 'orgId', ${item.orgId}, 'orgName', coalesce(${orgLegalNames.legalName}, ''),
    'specialist', json_build_object('id', ${item.specialistId}, 'name', coalesce(${specialistNames.name}, '')),
    'subject', ${item.subject}, 'status', ${item.status}, 'reason', ${item.reason}, 'note', ${item.note},
    'sla_deadline', ${isoText(item.slaDeadline)}, 'deferred_until', ${isoText(item.deferredUntil)}, 'assigned_expert_id', ${item.assignedExpertId},
    'channel', ${item.channel}, 'createdAt', ${isoText(item.createdAt)}, 'updatedAt', ${isoText(item.updatedAt)})`;
  // The page's items: all but the one read past it. Its last: the one before that.
  const kept = sql`${item.rank} < ${limit}`;
  const last = sql`${item.rank} = ${limit} - 1`;
  return db
    .select({
      // Text, so node-pg hands it over unparsed.
      items: sql<string | null>`(json_agg(${dto} order by ${item.rank}) filter (where ${kept}))::text`,
      more: sql<boolean>`count(*) = ${limit}`,
      lastAt: sql<string | null>`max(${isoText(item.updatedAt)}) filter (where ${last})`,
      lastId: sql<string | null>`max(${item.id}::text) filter (where ${last})`,
    })
    .from(item)
    .leftJoin(orgLegalNames, eq(orgLegalNames.id, item.orgId))
    .leftJoin(specialistNames, eq(specialistNames.id, item.specialistId));
}

/** The one row of `pageQuery`. */
interface PageRow {
  items: string | null;
  more: boolean;
  lastAt: string | null;
  lastId: string | null;
}

function toQueuePage(result: PageRow[]): QueuePage {
  const row = result[0];
  const next = row?.more && row.lastAt && row.lastId ? { at: new Date(row.lastAt), id: row.lastId } : undefined;
  return { items: new JsonText(row?.items ?? '[]'), next };
}

/** A message matching the search words (websearch syntax). */
function searchMatches(q: string): SQL {
  return sql`${messageWords(messages.content)} @@ websearch_to_tsquery('english', ${q})`;
}
