import { Injectable } from '@nestjs/common';
import { and, desc, eq, ilike, inArray, lt, ne, not, or, sql } from 'drizzle-orm';
import { Clock } from '../../platform/clock/clock.js';
import { SharedCaches, type SharedCache } from '../../platform/cache/shared-cache.js';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { anyUuid, containsPattern, newerThan, olderThan } from '../../platform/db/query-parts.js';
import type { Keyset } from '../../platform/http/pagination.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { orgs, slugReservations, type NewOrgRow, type OrgRow, type OrgStatus } from './orgs.tables.js';

/** An org's summary: its name and status. */
export type OrgSummary = Pick<OrgRow, 'id' | 'slug' | 'legalName' | 'status'>;

@Injectable()
export class OrgsRepository {
  /** The reads of every agent turn (its org, the access gate) and of every sign-in: prepared statements. */
  private readonly byId: PreparedStatement<OrgRow[], { id: string }>;
  private readonly byIds: PreparedStatement<OrgRow[], { ids: string[] }>;
  private readonly summariesByIds: PreparedStatement<OrgSummary[], { ids: string[] }>;
  /** The org as agent turns read it (their prompt's name and timezone), kept until a write of the row (on any instance). */
  private readonly forTurns: SharedCache<OrgRow | undefined>;

  constructor(
    private readonly dbService: DbService,
    private readonly clock: Clock,
    caches: SharedCaches,
  ) {
    this.forTurns = caches.define('orgs.turn', { ttlMs: 60_000, maxEntries: 2000 });
    this.byId = dbService.prepared('orgs_by_id', (db) =>
      db
        .select()
        .from(orgs)
        .where(eq(orgs.id, sql.placeholder('id'))),
    );
    this.byIds = dbService.prepared('orgs_by_ids', (db) =>
      db
        .select()
        .from(orgs)
        .where(anyUuid(orgs.id, sql.placeholder('ids'))),
    );
    this.summariesByIds = dbService.prepared('orgs_summaries_by_ids', (db) =>
      db
        .select({ id: orgs.id, slug: orgs.slug, legalName: orgs.legalName, status: orgs.status })
        .from(orgs)
        .where(anyUuid(orgs.id, sql.placeholder('ids'))),
    );
  }

  private get db() {
    return this.dbService.db;
  }

  async findById(id: string): Promise<OrgRow | undefined> {
    const [row] = await this.byId({ id });
    return row;
  }

  /** The org holding a slug (deactivated orgs release theirs to nobody but keep the row). */
  /**
   * The same as findById, from the cache every update and transition invalidates: an agent turn's
   * read. Never an access decision (the access gate reads the row itself).
   */
  async findForTurn(id: string): Promise<OrgRow | undefined> {
    return this.dbService.inTransaction ? this.findById(id) : this.forTurns.get(id, () => this.findById(id));
  }

  async findBySlug(slug: string): Promise<OrgRow | undefined> {
    const [row] = await this.db
      .select()
      .from(orgs)
      .where(and(eq(orgs.slug, slug), ne(orgs.status, 'deactivated')));
    return row;
  }

  /** Reads the org and locks its row until the transaction ends (serializes work on one org). */
  async lockById(id: string): Promise<OrgRow | undefined> {
    const [row] = await this.db.select().from(orgs).where(eq(orgs.id, id)).for('update');
    return row;
  }

  async findByIds(ids: string[]): Promise<OrgRow[]> {
    if (ids.length === 0) return [];
    return this.byIds({ ids });
  }

  /** The name and status of each org among `ids` (the access gate of an agent turn reads them). */
  async summaries(ids: string[]): Promise<OrgSummary[]> {
    if (ids.length === 0) return [];
    return this.summariesByIds({ ids });
  }

  /** Newest first; limit + 1 rows. */
  async list(filter: { status?: OrgStatus; q?: string; assignedAmId?: string }, page: { limit: number; after?: Keyset }): Promise<OrgRow[]> {
    const q = filter.q ? containsPattern(filter.q) : undefined;
    return this.db
      .select()
      .from(orgs)
      .where(
        and(
          filter.status ? eq(orgs.status, filter.status) : undefined,
          filter.assignedAmId ? eq(orgs.assignedAmId, filter.assignedAmId) : undefined,
          q ? or(ilike(orgs.legalName, q), ilike(orgs.slug, q), ilike(orgs.adminEmail, q)) : undefined,
          olderThan(orgs.createdAt, orgs.id, page.after),
        ),
      )
      .orderBy(desc(orgs.createdAt), desc(orgs.id))
      .limit(page.limit + 1);
  }

  async idsAssignedTo(amId: string): Promise<string[]> {
    const rows = await this.db
      .select({ id: orgs.id })
      .from(orgs)
      .where(and(eq(orgs.assignedAmId, amId), ne(orgs.status, 'deactivated')));
    return rows.map((r) => r.id);
  }

  /** Orgs that have been activated (billing may run for them), oldest first. */
  async activated(): Promise<OrgRow[]> {
    return this.db
      .select()
      .from(orgs)
      .where(sql`${orgs.activatedAt} is not null`)
      .orderBy(orgs.createdAt, orgs.id);
  }

  /**
   * One page (limit + 1 rows) of the activated orgs, oldest first (created, then id), after the
   * keyset; `only` keeps these orgs, `except` leaves these out.
   */
  async activatedPage(page: { limit: number; after?: Keyset; only?: readonly string[]; except?: readonly string[] }): Promise<OrgRow[]> {
    return this.db
      .select()
      .from(orgs)
      .where(
        and(
          sql`${orgs.activatedAt} is not null`,
          newerThan(orgs.createdAt, orgs.id, page.after),
          page.only ? anyUuid(orgs.id, page.only) : undefined,
          page.except?.length ? not(anyUuid(orgs.id, page.except)) : undefined,
        ),
      )
      .orderBy(orgs.createdAt, orgs.id)
      .limit(page.limit + 1);
  }

  /** Orgs in one of `statuses` last touched before `before` (the stale-org sweep). */
  async staleIn(statuses: OrgStatus[], before: Date): Promise<OrgRow[]> {
    return this.db
      .select()
      .from(orgs)
      .where(and(inArray(orgs.status, statuses), lt(orgs.updatedAt, before)));
  }

  /** Active orgs with a trial that ends on or before `day` (YYYY-MM-DD). */
  async trialsEndingBy(day: string): Promise<OrgRow[]> {
    return this.db
      .select()
      .from(orgs)
      .where(and(eq(orgs.status, 'active'), eq(orgs.trialMode, 'default'), sql`${orgs.trialEndDate} is not null and ${orgs.trialEndDate} <= ${day}`));
  }

  async insert(values: NewOrgRow): Promise<OrgRow> {
    const [row] = await this.db.insert(orgs).values(values).returning();
    return row!;
  }

  /** Any field but the status, which only `transition` writes. */
  async update(id: string, values: Omit<Partial<NewOrgRow>, 'status'>): Promise<OrgRow | undefined> {
    const [row] = await this.db
      .update(orgs)
      .set({ ...values, updatedAt: this.clock.now() })
      .where(eq(orgs.id, id))
      .returning();
    this.forTurns.invalidate(id);
    return row;
  }

  /** Moves an org from one status to another; undefined when it was no longer in `from`. */
  async transition(id: string, from: OrgStatus, values: Partial<NewOrgRow> & { status: OrgStatus }): Promise<OrgRow | undefined> {
    const [row] = await this.db
      .update(orgs)
      .set({ ...values, updatedAt: this.clock.now() })
      .where(and(eq(orgs.id, id), eq(orgs.status, from)))
      .returning();
    this.forTurns.invalidate(id);
    return row;
  }

  /** The org that reserved a slug, in any org: a slug names its org. */
  async unscopedFindReservation(slug: string): Promise<{ orgId: string; kind: 'reserved' | 'alias' } | undefined> {
    const [row] = await this.db.select({ orgId: slugReservations.orgId, kind: slugReservations.kind }).from(slugReservations).where(eq(slugReservations.slug, slug));
    return row;
  }

  /** Reserves a slug for the org of the scope for good; false when another org already reserved it. */
  async reserve(scope: OrgScope, slug: string, kind: 'reserved' | 'alias'): Promise<boolean> {
    const rows = await this.db
      .insert(slugReservations)
      .values({ slug, orgId: scope.orgId, kind })
      .onConflictDoUpdate({ target: slugReservations.slug, set: { slug: sql`excluded.slug` }, where: inOrg(slugReservations.orgId, scope) })
      .returning({ orgId: slugReservations.orgId });
    return rows.length === 1;
  }
}
