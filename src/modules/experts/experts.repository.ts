import { Injectable } from '@nestjs/common';
import { and, asc, eq, sql } from 'drizzle-orm';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { expertGrants, type ExpertGrantRow } from './experts.tables.js';

@Injectable()
export class ExpertsRepository {
  /** An Expert's grants: read by every request of theirs that lists or opens conversations (a prepared statement). */
  private readonly ofExpert: PreparedStatement<ExpertGrantRow[], { expertId: string }>;

  constructor(private readonly dbService: DbService) {
    this.ofExpert = dbService.prepared('expert_grants_of_expert', (db) =>
      db
        .select()
        .from(expertGrants)
        .where(eq(expertGrants.expertId, sql.placeholder('expertId'))),
    );
  }

  private get db() {
    return this.dbService.db;
  }

  async listForOrg(scope: OrgScope): Promise<ExpertGrantRow[]> {
    return this.db.select().from(expertGrants).where(inOrg(expertGrants.orgId, scope)).orderBy(asc(expertGrants.createdAt), asc(expertGrants.id));
  }

  /** Every grant of every org: the platform-wide Expert leverage figures. */
  async unscopedListAll(): Promise<ExpertGrantRow[]> {
    return this.db.select().from(expertGrants);
  }

  /** One Expert's grants across the orgs they cover (what their Reach is made of). */
  async unscopedListForExpert(expertId: string): Promise<ExpertGrantRow[]> {
    return this.ofExpert({ expertId });
  }

  /** The orgs one Expert's grants cover. */
  async unscopedOrgIdsOfExpert(expertId: string): Promise<string[]> {
    const rows = await this.db.selectDistinct({ orgId: expertGrants.orgId }).from(expertGrants).where(eq(expertGrants.expertId, expertId));
    return rows.map((r) => r.orgId);
  }

  async insert(scope: OrgScope, values: Omit<typeof expertGrants.$inferInsert, 'orgId'>): Promise<ExpertGrantRow> {
    const [row] = await this.db
      .insert(expertGrants)
      .values({ ...values, orgId: scope.orgId })
      .returning();
    return row!;
  }

  async delete(scope: OrgScope, grantId: string): Promise<ExpertGrantRow | undefined> {
    const [row] = await this.db
      .delete(expertGrants)
      .where(and(inOrg(expertGrants.orgId, scope), eq(expertGrants.id, grantId)))
      .returning();
    return row;
  }
}
