import { Injectable } from '@nestjs/common';
import { and, asc, eq, sql } from 'drizzle-orm';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { expertGrants, type ExpertGrantRow } from './experts.tables.js';

@Injectable()
export class ExpertsRepository {
  /** An Expert's grants: read by every request of theirs that lists or opens conversations (a prepared statement). */
  private readonly ofExpert: PreparedStatement<ExpertGrantRow[], { expertId: string }>;

  constructor(private readonly dbService: DbService) {
    this.ofExpert = dbService.prepared('expert_grants_of_expert', (db) => db.select().from(expertGrants).where(eq(expertGrants.expertId, sql.placeholder('expertId'))));
  }

  private get db() {
    return this.dbService.db;
  }

  async listForOrg(orgId: string): Promise<ExpertGrantRow[]> {
    return this.db.select().from(expertGrants).where(eq(expertGrants.orgId, orgId)).orderBy(asc(expertGrants.createdAt), asc(expertGrants.id));
  }

  async listAll(): Promise<ExpertGrantRow[]> {
    return this.db.select().from(expertGrants);
  }

  async listForExpert(expertId: string): Promise<ExpertGrantRow[]> {
    return this.ofExpert({ expertId });
  }

  async orgIdsOfExpert(expertId: string): Promise<string[]> {
    const rows = await this.db.selectDistinct({ orgId: expertGrants.orgId }).from(expertGrants).where(eq(expertGrants.expertId, expertId));
    return rows.map((r) => r.orgId);
  }

  async insert(values: typeof expertGrants.$inferInsert): Promise<ExpertGrantRow> {
    const [row] = await this.db.insert(expertGrants).values(values).returning();
    return row!;
  }

  async delete(orgId: string, grantId: string): Promise<ExpertGrantRow | undefined> {
    const [row] = await this.db
      .delete(expertGrants)
      .where(and(eq(expertGrants.orgId, orgId), eq(expertGrants.id, grantId)))
      .returning();
    return row;
  }
}
