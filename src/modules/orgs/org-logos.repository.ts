import { Injectable } from '@nestjs/common';
import { DbService } from '../../platform/db/db.service.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { orgLogos, type OrgLogoRow } from './orgs.tables.js';

/** Logo rows: every query names the org they belong to. */
@Injectable()
export class OrgLogosRepository {
  constructor(private readonly dbService: DbService) {}

  private get db() {
    return this.dbService.db;
  }

  async findByOrg(scope: OrgScope): Promise<OrgLogoRow | undefined> {
    const [row] = await this.db.select().from(orgLogos).where(inOrg(orgLogos.orgId, scope));
    return row;
  }

  async insert(scope: OrgScope, values: Omit<typeof orgLogos.$inferInsert, 'orgId'>): Promise<OrgLogoRow> {
    const [row] = await this.db
      .insert(orgLogos)
      .values({ ...values, orgId: scope.orgId })
      .returning();
    return row!;
  }

  async deleteByOrg(scope: OrgScope): Promise<OrgLogoRow | undefined> {
    const [row] = await this.db.delete(orgLogos).where(inOrg(orgLogos.orgId, scope)).returning();
    return row;
  }
}
