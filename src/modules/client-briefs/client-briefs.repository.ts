import { Injectable } from '@nestjs/common';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { systemNow } from '../../platform/clock/clock.js';
import { SharedCaches, type SharedCache } from '../../platform/cache/shared-cache.js';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { olderThan } from '../../platform/db/query-parts.js';
import type { Keyset } from '../../platform/http/pagination.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { clientBriefs, type ClientBriefRow } from './client-briefs.tables.js';

type NewClientBriefRow = typeof clientBriefs.$inferInsert;

/** How many briefs the agent reads per turn (ClientBriefsService.briefsOf's default). */
export const PROMPT_BRIEFS = 50;

/** Briefs are tenant rows: every query names the org. */
@Injectable()
export class ClientBriefsRepository {
  /** The briefs every agent turn reads: a prepared statement. */
  private readonly oldestFirstOf: PreparedStatement<ClientBriefRow[], { orgId: string; limit: number }>;

  /** What the agent's prompt reads of an org (the first PROMPT_BRIEFS), kept until a write of its briefs. */
  private readonly promptBriefs: SharedCache<ClientBriefRow[]>;

  constructor(
    private readonly dbService: DbService,
    caches: SharedCaches,
  ) {
    this.promptBriefs = caches.define('client-briefs.prompt', { ttlMs: 60_000, maxEntries: 2000 });
    this.oldestFirstOf = dbService.prepared('client_briefs_oldest_first', (db) =>
      db
        .select()
        .from(clientBriefs)
        .where(eq(clientBriefs.orgId, sql.placeholder('orgId')))
        .orderBy(asc(clientBriefs.createdAt), asc(clientBriefs.id))
        .limit(sql.placeholder('limit')),
    );
  }

  private get db() {
    return this.dbService.db;
  }

  /** Newest first, keyset-paginated; limit + 1 rows. */
  async list(scope: OrgScope, page: { limit: number; after?: Keyset }): Promise<ClientBriefRow[]> {
    return this.db
      .select()
      .from(clientBriefs)
      .where(and(inOrg(clientBriefs.orgId, scope), olderThan(clientBriefs.createdAt, clientBriefs.id, page.after)))
      .orderBy(desc(clientBriefs.createdAt), desc(clientBriefs.id))
      .limit(page.limit + 1);
  }

  /** Oldest first, at most `limit` rows: the order the agent's prompt reads them in. */
  async oldestFirst(scope: OrgScope, limit: number): Promise<ClientBriefRow[]> {
    const read = () => this.oldestFirstOf({ orgId: scope.orgId, limit });
    // Inside a transaction the rows are the transaction's own: never cached.
    return limit === PROMPT_BRIEFS && !this.dbService.inTransaction ? this.promptBriefs.get(scope.orgId, read) : read();
  }

  /** By id alone, across orgs: the brief's org is what the service then checks the caller against. */
  async unscopedFindById(id: string): Promise<ClientBriefRow | undefined> {
    const [row] = await this.db.select().from(clientBriefs).where(eq(clientBriefs.id, id));
    return row;
  }

  async insert(scope: OrgScope, values: Omit<NewClientBriefRow, 'orgId'>): Promise<ClientBriefRow> {
    const [row] = await this.db
      .insert(clientBriefs)
      .values({ ...values, orgId: scope.orgId })
      .returning();
    this.promptBriefs.invalidate(scope.orgId);
    return row!;
  }

  async update(scope: OrgScope, id: string, values: Pick<Partial<NewClientBriefRow>, 'title' | 'content' | 'updatedBy'>): Promise<ClientBriefRow | undefined> {
    const [row] = await this.db
      .update(clientBriefs)
      .set({ ...values, updatedAt: systemNow() })
      .where(and(inOrg(clientBriefs.orgId, scope), eq(clientBriefs.id, id)))
      .returning();
    this.promptBriefs.invalidate(scope.orgId);
    return row;
  }

  async delete(scope: OrgScope, id: string): Promise<ClientBriefRow | undefined> {
    const [row] = await this.db
      .delete(clientBriefs)
      .where(and(inOrg(clientBriefs.orgId, scope), eq(clientBriefs.id, id)))
      .returning();
    this.promptBriefs.invalidate(scope.orgId);
    return row;
  }
}
