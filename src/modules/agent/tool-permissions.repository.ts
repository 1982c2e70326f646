import { Injectable } from '@nestjs/common';
import { eq, sql } from 'drizzle-orm';
import { DbService } from '../../platform/db/db.service.js';
import { orgToolPermissions, type OrgToolPermissionRow } from './agent.tables.js';

@Injectable()
export class ToolPermissionsRepository {
  constructor(private readonly dbService: DbService) {}

  async listForOrg(orgId: string): Promise<OrgToolPermissionRow[]> {
    return this.dbService.db.select().from(orgToolPermissions).where(eq(orgToolPermissions.orgId, orgId));
  }

  async upsert(values: { orgId: string; toolName: string; enabled: boolean; updatedBy: string }): Promise<OrgToolPermissionRow> {
    const [row] = await this.dbService.db
      .insert(orgToolPermissions)
      .values({ ...values, updatedAt: new Date() })
      .onConflictDoUpdate({
        target: [orgToolPermissions.orgId, orgToolPermissions.toolName],
        set: { enabled: values.enabled, updatedBy: values.updatedBy, updatedAt: sql`now()` },
      })
      .returning();
    return row!;
  }
}
