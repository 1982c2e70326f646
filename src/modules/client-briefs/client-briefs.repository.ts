import { Injectable } from '@nestjs/common';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { olderThan } from '../../platform/db/query-parts.js';
import type { Keyset } from '../../platform/http/pagination.js';
import { clientBriefs, type ClientBriefRow } from './client-briefs.tables.js';

type NewClientBriefRow = typeof clientBriefs.$inferInsert;

/** Briefs are tenant rows: every query names the org. */
@Injectable()
export class ClientBriefsRepository {
  /** The briefs every agent turn reads: a prepared statement. */
  private readonly oldestFirstOf: PreparedStatement<ClientBriefRow[], { orgId: string; limit: number }>;

  constructor(private readonly dbService: DbService) {
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
  async list(orgId: string, page: { limit: number; after?: Keyset }): Promise<ClientBriefRow[]> {
    return this.db
      .select()
      .from(clientBriefs)
      .where(
        and(
          eq(clientBriefs.orgId, orgId),
          olderThan(clientBriefs.createdAt, clientBriefs.id, page.after),
        ),
      )
      .orderBy(desc(clientBriefs.createdAt), desc(clientBriefs.id))
      .limit(page.limit + 1);
  }

  /** Oldest first, at most `limit` rows: the order the agent's prompt reads them in. */
  async oldestFirst(orgId: string, limit: number): Promise<ClientBriefRow[]> {
    return this.oldestFirstOf({ orgId, limit });
  }

  /** By id alone: the caller decides whether the row's org may be revealed. */
  async findById(id: string): Promise<ClientBriefRow | undefined> {
    const [row] = await this.db.select().from(clientBriefs).where(eq(clientBriefs.id, id));
    return row;
  }

  async insert(values: NewClientBriefRow): Promise<ClientBriefRow> {
    const [row] = await this.db.insert(clientBriefs).values(values).returning();
    return row!;
  }

  async update(orgId: string, id: string, values: Pick<Partial<NewClientBriefRow>, 'title' | 'content' | 'updatedBy'>): Promise<ClientBriefRow | undefined> {
    const [row] = await this.db
      .update(clientBriefs)
      .set({ ...values, updatedAt: new Date() })
      .where(and(eq(clientBriefs.orgId, orgId), eq(clientBriefs.id, id)))
      .returning();
    return row;
  }

  async delete(orgId: string, id: string): Promise<ClientBriefRow | undefined> {
    const [row] = await this.db
      .delete(clientBriefs)
      .where(and(eq(clientBriefs.orgId, orgId), eq(clientBriefs.id, id)))
      .returning();
    return row;
  }
}
