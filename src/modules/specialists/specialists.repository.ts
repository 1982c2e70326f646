import { Injectable } from '@nestjs/common';
import { asc, eq, inArray, sql } from 'drizzle-orm';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { anyUuid, newerThan } from '../../platform/db/query-parts.js';
import type { Keyset } from '../../platform/http/pagination.js';
import { specialistRateHistory, specialists, type SpecialistRow } from './specialists.tables.js';

type NewSpecialistRow = typeof specialists.$inferInsert;

/** The catalog is platform-wide (no org): one pool every org draws from. */
@Injectable()
export class SpecialistsRepository {
  /** The Specialists of a thread, a list or an agent turn: a prepared statement. */
  private readonly byIds: PreparedStatement<SpecialistRow[], { ids: string[] }>;

  constructor(private readonly dbService: DbService) {
    this.byIds = dbService.prepared('specialists_by_ids', (db) => db.select().from(specialists).where(anyUuid(specialists.id, sql.placeholder('ids'))));
  }

  /** Oldest first (a stable catalog order), keyset-paginated; limit + 1 rows. */
  async list(page: { limit: number; after?: Keyset }): Promise<SpecialistRow[]> {
    return this.dbService.db
      .select()
      .from(specialists)
      .where(newerThan(specialists.createdAt, specialists.id, page.after))
      .orderBy(asc(specialists.createdAt), asc(specialists.id))
      .limit(page.limit + 1);
  }

  async findById(id: string): Promise<SpecialistRow | undefined> {
    const [row] = await this.dbService.db.select().from(specialists).where(eq(specialists.id, id));
    return row;
  }

  async findByIds(ids: string[]): Promise<SpecialistRow[]> {
    if (ids.length === 0) return [];
    return this.byIds({ ids });
  }

  async findBySlug(slug: string): Promise<SpecialistRow | undefined> {
    const [row] = await this.dbService.db.select().from(specialists).where(eq(specialists.slug, slug));
    return row;
  }

  async insert(values: NewSpecialistRow): Promise<SpecialistRow> {
    const [row] = await this.dbService.db.insert(specialists).values(values).returning();
    return row!;
  }

  async update(id: string, values: Partial<NewSpecialistRow>): Promise<SpecialistRow | undefined> {
    const [row] = await this.dbService.db
      .update(specialists)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(specialists.id, id))
      .returning();
    return row;
  }

  async addRateHistory(values: typeof specialistRateHistory.$inferInsert): Promise<void> {
    await this.dbService.db.insert(specialistRateHistory).values(values);
  }

  /** Catalog rate versions of these Specialists, oldest first. */
  async rateHistoryFor(specialistIds: string[]) {
    if (specialistIds.length === 0) return [];
    return this.dbService.db
      .select()
      .from(specialistRateHistory)
      .where(inArray(specialistRateHistory.specialistId, specialistIds))
      .orderBy(asc(specialistRateHistory.createdAt), asc(specialistRateHistory.id));
  }
}
