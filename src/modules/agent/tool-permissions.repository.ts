import { Injectable } from '@nestjs/common';
import { eq, sql } from 'drizzle-orm';
import { systemNow } from '../../platform/clock/clock.js';
import { SharedCaches, type SharedCache } from '../../platform/cache/shared-cache.js';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';
import { orgToolPermissions, type OrgToolPermissionRow } from './agent.tables.js';

@Injectable()
export class ToolPermissionsRepository {
  /** Read by every agent turn: a prepared statement. */
  private readonly ofOrg: PreparedStatement<OrgToolPermissionRow[], { orgId: string }>;

  /** An org's permissions as agent turns read them, kept until a write of them (on any instance). */
  private readonly forTurns: SharedCache<OrgToolPermissionRow[]>;

  constructor(
    private readonly dbService: DbService,
    caches: SharedCaches,
  ) {
    this.forTurns = caches.define('org-tool-permissions', { ttlMs: 60_000, maxEntries: 2000 });
    this.ofOrg = dbService.prepared('org_tool_permissions_of_org', (db) =>
      db
        .select()
        .from(orgToolPermissions)
        .where(eq(orgToolPermissions.orgId, sql.placeholder('orgId'))),
    );
  }

  async listForOrg(scope: OrgScope): Promise<OrgToolPermissionRow[]> {
    return this.ofOrg({ orgId: scope.orgId });
  }

  /** The same, for an agent turn: from the cache every write of them invalidates. */
  async listForTurn(scope: OrgScope): Promise<OrgToolPermissionRow[]> {
    return this.dbService.inTransaction ? this.listForOrg(scope) : this.forTurns.get(scope.orgId, () => this.listForOrg(scope));
  }

  async upsert(scope: OrgScope, values: { toolName: string; enabled: boolean; updatedBy: string }): Promise<OrgToolPermissionRow> {
    const [row] = await this.dbService.db
      .insert(orgToolPermissions)
      .values({ ...values, orgId: scope.orgId, updatedAt: systemNow() })
      .onConflictDoUpdate({
        target: [orgToolPermissions.orgId, orgToolPermissions.toolName],
        set: { enabled: values.enabled, updatedBy: values.updatedBy, updatedAt: sql`now()` },
      })
      .returning();
    this.forTurns.invalidate(scope.orgId);
    return row!;
  }
}
