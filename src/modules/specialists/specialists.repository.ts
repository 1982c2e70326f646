import { Injectable } from '@nestjs/common';
import { and, asc, eq, ilike, inArray, or, sql } from 'drizzle-orm';
import { systemNow } from '../../platform/clock/clock.js';
import { SharedCaches, type SharedCache } from '../../platform/cache/shared-cache.js';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { anyUuid, containsPattern, newerThan } from '../../platform/db/query-parts.js';
import type { Keyset } from '../../platform/http/pagination.js';
import { specialistRateHistory, specialists, type SpecialistRow } from './specialists.tables.js';

type NewSpecialistRow = typeof specialists.$inferInsert;

/** The catalog is platform-wide (no org): one pool every org draws from. */
@Injectable()
export class SpecialistsRepository {
  /** The Specialists of a thread, a list or an agent turn: a prepared statement. */
  private readonly byIds: PreparedStatement<SpecialistRow[], { ids: string[] }>;

  /** One Specialist as agent turns read it, kept until it is updated (on any instance). */
  private readonly forTurns: SharedCache<SpecialistRow | undefined>;

  constructor(
    private readonly dbService: DbService,
    caches: SharedCaches,
  ) {
    this.forTurns = caches.define('specialists.turn', { ttlMs: 60_000, maxEntries: 1000 });
    this.byIds = dbService.prepared('specialists_by_ids', (db) =>
      db
        .select()
        .from(specialists)
        .where(anyUuid(specialists.id, sql.placeholder('ids'))),
    );
  }

  /** Oldest first (a stable catalog order), keyset-paginated; limit + 1 rows. `q` searches name, handle, routing email and skills. */
  async list(filter: { q?: string }, page: { limit: number; after?: Keyset }): Promise<SpecialistRow[]> {
    const pattern = filter.q ? containsPattern(filter.q) : undefined;
    return this.dbService.db
      .select()
      .from(specialists)
      .where(
        and(
          pattern
            ? or(ilike(specialists.name, pattern), ilike(specialists.slug, pattern), ilike(specialists.routingEmail, pattern), sql`array_to_string(${specialists.skillTags}, ' ') ilike ${pattern}`)
            : undefined,
          newerThan(specialists.createdAt, specialists.id, page.after),
        ),
      )
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

  /** The same as findByIds for one id, from the cache every update invalidates (an agent turn's read). */
  async findForTurn(id: string): Promise<SpecialistRow | undefined> {
    const read = async () => (await this.byIds({ ids: [id] }))[0];
    return this.dbService.inTransaction ? read() : this.forTurns.get(id, read);
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
      .set({ ...values, updatedAt: systemNow() })
      .where(eq(specialists.id, id))
      .returning();
    this.forTurns.invalidate(id);
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
