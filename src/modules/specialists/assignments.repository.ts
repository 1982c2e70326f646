import { Injectable } from '@nestjs/common';
import { and, asc, eq, inArray, isNull, ne, or, type SQL } from 'drizzle-orm';
import { systemNow } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { orgSpecialistAssignments as osa, osaRateHistory, osaRebrandAliases as rebrand, type OsaRow } from './assignments.tables.js';
import { specialists, type SpecialistRow } from './specialists.tables.js';

export type OsaWithSpecialist = OsaRow & { specialist: SpecialistRow };
export type NewOsa = Omit<typeof osa.$inferInsert, 'orgId'>;
export type NewOsaRateVersion = Omit<typeof osaRateHistory.$inferInsert, 'orgId'>;

/** Assignment queries: tenant ones take the org's scope first; `unscoped*` ones are platform-wide (each says why). */
@Injectable()
export class AssignmentsRepository {
  constructor(private readonly dbService: DbService) {}

  private get db() {
    return this.dbService.db;
  }

  async listActive(scope: OrgScope): Promise<OsaWithSpecialist[]> {
    const rows = await this.db
      .select({ osa, specialist: specialists })
      .from(osa)
      .innerJoin(specialists, eq(specialists.id, osa.specialistId))
      .where(and(inOrg(osa.orgId, scope), isNull(osa.unassignedAt)))
      .orderBy(asc(osa.createdAt), asc(osa.id));
    return rows.map((r) => ({ ...r.osa, specialist: r.specialist }));
  }

  async findActive(scope: OrgScope, assignmentId: string): Promise<OsaWithSpecialist | undefined> {
    const [row] = await this.db
      .select({ osa, specialist: specialists })
      .from(osa)
      .innerJoin(specialists, eq(specialists.id, osa.specialistId))
      .where(and(inOrg(osa.orgId, scope), eq(osa.id, assignmentId), isNull(osa.unassignedAt)));
    return row ? { ...row.osa, specialist: row.specialist } : undefined;
  }

  async findActiveBySpecialist(scope: OrgScope, specialistId: string): Promise<OsaRow | undefined> {
    const [row] = await this.db
      .select()
      .from(osa)
      .where(and(inOrg(osa.orgId, scope), eq(osa.specialistId, specialistId), isNull(osa.unassignedAt)));
    return row;
  }

  /**
   * The active assignment whose workspace address this is, now or before a rebrand, in any org
   * (inbound mail routing: the address names the org).
   */
  async unscopedFindActiveByAlias(address: string): Promise<OsaWithSpecialist | undefined> {
    const formerly = this.db.select({ id: rebrand.assignmentId }).from(rebrand).where(eq(rebrand.address, address));
    const [row] = await this.db
      .select({ osa, specialist: specialists })
      .from(osa)
      .innerJoin(specialists, eq(specialists.id, osa.specialistId))
      .where(and(or(eq(osa.emailAlias, address), inArray(osa.id, formerly)), isNull(osa.unassignedAt)));
    return row ? { ...row.osa, specialist: row.specialist } : undefined;
  }

  /**
   * Whether another assignment of any org holds the address: as its alias (active ones) or as a
   * rebrand alias (for good). Across orgs: an address routes to one assignment platform-wide.
   */
  async unscopedAliasTaken(address: string, exceptAssignmentId?: string): Promise<boolean> {
    const other = (id: typeof osa.id | typeof rebrand.assignmentId) => (exceptAssignmentId ? ne(id, exceptAssignmentId) : undefined);
    const [live] = await this.db
      .select({ id: osa.id })
      .from(osa)
      .where(and(eq(osa.emailAlias, address), isNull(osa.unassignedAt), other(osa.id)))
      .limit(1);
    if (live) return true;
    const [kept] = await this.db
      .select({ id: rebrand.id })
      .from(rebrand)
      .where(and(eq(rebrand.address, address), other(rebrand.assignmentId)))
      .limit(1);
    return Boolean(kept);
  }

  /**
   * The OSA's alias becomes `next`; its old one is kept as a rebrand alias, and `next` stops being
   * one of its rebrand aliases if it was (a slug changed back). Nothing changes when the OSA is
   * not of the scope's org (no rebrand alias of one org for another's OSA).
   */
  async replaceAlias(scope: OrgScope, assignmentId: string, previous: string, next: string): Promise<void> {
    if (!(await this.update(scope, assignmentId, { emailAlias: next }))) return;
    await this.db.delete(rebrand).where(and(inOrg(rebrand.orgId, scope), eq(rebrand.assignmentId, assignmentId), eq(rebrand.address, next)));
    await this.db.insert(rebrand).values({ orgId: scope.orgId, assignmentId, address: previous }).onConflictDoNothing();
  }

  async insert(scope: OrgScope, values: NewOsa): Promise<OsaRow> {
    const [row] = await this.db
      .insert(osa)
      .values({ ...values, orgId: scope.orgId })
      .returning();
    return row!;
  }

  async update(scope: OrgScope, id: string, values: Partial<NewOsa>): Promise<OsaRow | undefined> {
    const [row] = await this.db
      .update(osa)
      .set({ ...values, updatedAt: systemNow() })
      .where(and(inOrg(osa.orgId, scope), eq(osa.id, id)))
      .returning();
    return row;
  }

  async addRateHistory(scope: OrgScope, values: NewOsaRateVersion): Promise<void> {
    await this.db.insert(osaRateHistory).values({ ...values, orgId: scope.orgId });
  }

  async rateHistory(scope: OrgScope, assignmentId: string) {
    return this.db
      .select()
      .from(osaRateHistory)
      .where(and(inOrg(osaRateHistory.orgId, scope), eq(osaRateHistory.assignmentId, assignmentId)))
      .orderBy(asc(osaRateHistory.createdAt));
  }

  /** Every assignment of these orgs, unassigned ones included (billing history). */
  async allForOrgs(scopes: readonly OrgScope[]): Promise<OsaWithSpecialist[]> {
    if (scopes.length === 0) return [];
    const rows = await this.db
      .select({ osa, specialist: specialists })
      .from(osa)
      .innerJoin(specialists, eq(specialists.id, osa.specialistId))
      .where(or(...scopes.map((scope) => inOrg(osa.orgId, scope))))
      .orderBy(asc(osa.createdAt), asc(osa.id));
    return rows.map((r) => ({ ...r.osa, specialist: r.specialist }));
  }

  /** One org's assignments by id, unassigned ones included (its cost panel names them). */
  byIds(scope: OrgScope, ids: string[]): Promise<OsaWithSpecialist[]> {
    return this.withSpecialists(ids, inOrg(osa.orgId, scope));
  }

  /** Assignments by id across orgs, unassigned ones included (the platform-wide cost panels and audit log name them). */
  unscopedByIds(ids: string[]): Promise<OsaWithSpecialist[]> {
    return this.withSpecialists(ids);
  }

  private async withSpecialists(ids: string[], inScope?: SQL): Promise<OsaWithSpecialist[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .select({ osa, specialist: specialists })
      .from(osa)
      .innerJoin(specialists, eq(specialists.id, osa.specialistId))
      .where(and(inScope, inArray(osa.id, ids)));
    return rows.map((r) => ({ ...r.osa, specialist: r.specialist }));
  }

  /** Every active assignment of every org (the platform-wide Expert leverage counts the instances a grant covers). */
  async unscopedAllActive(): Promise<OsaRow[]> {
    return this.db.select().from(osa).where(isNull(osa.unassignedAt));
  }

  /** Rate versions of these orgs' assignments, oldest first. */
  async rateHistoryFor(scopes: readonly OrgScope[], assignmentIds: string[]) {
    if (scopes.length === 0 || assignmentIds.length === 0) return [];
    return this.db
      .select()
      .from(osaRateHistory)
      .where(and(or(...scopes.map((scope) => inOrg(osaRateHistory.orgId, scope))), inArray(osaRateHistory.assignmentId, assignmentIds)))
      .orderBy(asc(osaRateHistory.createdAt), asc(osaRateHistory.id));
  }
}
