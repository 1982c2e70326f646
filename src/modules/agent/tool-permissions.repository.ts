import { Injectable } from '@nestjs/common';
import { eq, sql } from 'drizzle-orm';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { orgToolPermissions, type OrgToolPermissionRow } from './agent.tables.js';

@Injectable()
export class ToolPermissionsRepository {
  /** Read by every agent turn: a prepared statement. */
  private readonly ofOrg: PreparedStatement<OrgToolPermissionRow[], { orgId: string }>;

  constructor(private readonly dbService: DbService) {
    this.ofOrg = dbService.prepared('org_tool_permissions_of_org', (db) =>
      db.select().from(orgToolPermissions).where(eq(orgToolPermissions.orgId, sql.placeholder('orgId'))),
    );
  }

  async listForOrg(orgId: string): Promise<OrgToolPermissionRow[]> {
    return this.ofOrg({ orgId });
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
