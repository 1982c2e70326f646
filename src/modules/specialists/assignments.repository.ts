import { Injectable } from '@nestjs/common';
import { and, asc, eq, inArray, isNull, ne, or } from 'drizzle-orm';
import { DbService } from '../../platform/db/db.service.js';
import { orgSpecialistAssignments as osa, osaRateHistory, osaRebrandAliases as rebrand, type OsaRow } from './assignments.tables.js';
import { specialists, type SpecialistRow } from './specialists.tables.js';

export type OsaWithSpecialist = OsaRow & { specialist: SpecialistRow };

/** Assignment queries; every one is scoped by the org first. */
@Injectable()
export class AssignmentsRepository {
  constructor(private readonly dbService: DbService) {}

  private get db() {
    return this.dbService.db;
  }

  async listActive(orgId: string): Promise<OsaWithSpecialist[]> {
    const rows = await this.db
      .select({ osa, specialist: specialists })
      .from(osa)
      .innerJoin(specialists, eq(specialists.id, osa.specialistId))
      .where(and(eq(osa.orgId, orgId), isNull(osa.unassignedAt)))
      .orderBy(asc(osa.createdAt), asc(osa.id));
    return rows.map((r) => ({ ...r.osa, specialist: r.specialist }));
  }

  async findActive(orgId: string, assignmentId: string): Promise<OsaWithSpecialist | undefined> {
    const [row] = await this.db
      .select({ osa, specialist: specialists })
      .from(osa)
      .innerJoin(specialists, eq(specialists.id, osa.specialistId))
      .where(and(eq(osa.orgId, orgId), eq(osa.id, assignmentId), isNull(osa.unassignedAt)));
    return row ? { ...row.osa, specialist: row.specialist } : undefined;
  }

  async findActiveBySpecialist(orgId: string, specialistId: string): Promise<OsaRow | undefined> {
    const [row] = await this.db
      .select()
      .from(osa)
      .where(and(eq(osa.orgId, orgId), eq(osa.specialistId, specialistId), isNull(osa.unassignedAt)));
    return row;
  }

  /**
   * The active assignment whose workspace address this is, now or before a rebrand (not
   * org-scoped: the address is the key).
   */
  async findActiveByAlias(address: string): Promise<OsaWithSpecialist | undefined> {
    const formerly = this.db.select({ id: rebrand.assignmentId }).from(rebrand).where(eq(rebrand.address, address));
    const [row] = await this.db
      .select({ osa, specialist: specialists })
      .from(osa)
      .innerJoin(specialists, eq(specialists.id, osa.specialistId))
      .where(and(or(eq(osa.emailAlias, address), inArray(osa.id, formerly)), isNull(osa.unassignedAt)));
    return row ? { ...row.osa, specialist: row.specialist } : undefined;
  }

  /** Whether another assignment holds the address: as its alias (active ones) or as a rebrand alias (for good). */
  async aliasTaken(address: string, exceptAssignmentId?: string): Promise<boolean> {
    const other = (id: typeof osa.id | typeof rebrand.assignmentId) => (exceptAssignmentId ? ne(id, exceptAssignmentId) : undefined);
    const [live] = await this.db.select({ id: osa.id }).from(osa).where(and(eq(osa.emailAlias, address), isNull(osa.unassignedAt), other(osa.id))).limit(1);
    if (live) return true;
    const [kept] = await this.db.select({ id: rebrand.id }).from(rebrand).where(and(eq(rebrand.address, address), other(rebrand.assignmentId))).limit(1);
    return Boolean(kept);
  }

  /**
   * The OSA's alias becomes `next`; its old one is kept as a rebrand alias, and `next` stops being
   * one of its rebrand aliases if it was (a slug changed back).
   */
  async replaceAlias(orgId: string, assignmentId: string, previous: string, next: string): Promise<void> {
    await this.db.delete(rebrand).where(and(eq(rebrand.orgId, orgId), eq(rebrand.assignmentId, assignmentId), eq(rebrand.address, next)));
    await this.db.insert(rebrand).values({ orgId, assignmentId, address: previous }).onConflictDoNothing();
    await this.update(orgId, assignmentId, { emailAlias: next });
  }

  async insert(values: typeof osa.$inferInsert): Promise<OsaRow> {
    const [row] = await this.db.insert(osa).values(values).returning();
    return row!;
  }

  async update(orgId: string, id: string, values: Partial<typeof osa.$inferInsert>): Promise<OsaRow | undefined> {
    const [row] = await this.db
      .update(osa)
      .set({ ...values, updatedAt: new Date() })
      .where(and(eq(osa.orgId, orgId), eq(osa.id, id)))
      .returning();
    return row;
  }

  async addRateHistory(values: typeof osaRateHistory.$inferInsert): Promise<void> {
    await this.db.insert(osaRateHistory).values(values);
  }

  async rateHistory(orgId: string, assignmentId: string) {
    return this.db
      .select()
      .from(osaRateHistory)
      .where(and(eq(osaRateHistory.orgId, orgId), eq(osaRateHistory.assignmentId, assignmentId)))
      .orderBy(asc(osaRateHistory.createdAt));
  }

  /** Every assignment of these orgs, unassigned ones included (billing history). */
  async allForOrgs(orgIds: string[]): Promise<OsaWithSpecialist[]> {
    if (orgIds.length === 0) return [];
    const rows = await this.db
      .select({ osa, specialist: specialists })
      .from(osa)
      .innerJoin(specialists, eq(specialists.id, osa.specialistId))
      .where(inArray(osa.orgId, orgIds))
      .orderBy(asc(osa.createdAt), asc(osa.id));
    return rows.map((r) => ({ ...r.osa, specialist: r.specialist }));
  }

  /** Assignments by id across orgs, unassigned ones included (the cost panels name them). */
  async byIds(ids: string[]): Promise<OsaWithSpecialist[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.select({ osa, specialist: specialists }).from(osa).innerJoin(specialists, eq(specialists.id, osa.specialistId)).where(inArray(osa.id, ids));
    return rows.map((r) => ({ ...r.osa, specialist: r.specialist }));
  }

  /** Every active assignment (Expert leverage counts the instances a grant covers). */
  async allActive(): Promise<OsaRow[]> {
    return this.db.select().from(osa).where(isNull(osa.unassignedAt));
  }

  /** Rate versions of these assignments, oldest first. */
  async rateHistoryFor(assignmentIds: string[]) {
    if (assignmentIds.length === 0) return [];
    return this.db
      .select()
      .from(osaRateHistory)
      .where(inArray(osaRateHistory.assignmentId, assignmentIds))
      .orderBy(asc(osaRateHistory.createdAt), asc(osaRateHistory.id));
  }
}
