import { Injectable } from '@nestjs/common';
import { and, eq, inArray } from 'drizzle-orm';
import { DbService } from '../../platform/db/db.service.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { conversationArtifacts as artifacts, type ArtifactRow } from './conversations.tables.js';

/** Artifact rows: every read names the org and the conversation the artifact belongs to. */
@Injectable()
export class ArtifactsRepository {
  constructor(private readonly dbService: DbService) {}

  private get db() {
    return this.dbService.db;
  }

  /** Once per id: a second insert of the same artifact adds nothing. */
  async insertOnce(scope: OrgScope, values: Omit<typeof artifacts.$inferInsert, 'orgId'>): Promise<void> {
    await this.db
      .insert(artifacts)
      .values({ ...values, orgId: scope.orgId })
      .onConflictDoNothing({ target: artifacts.id });
  }

  async find(scope: OrgScope, conversationId: string, id: string): Promise<ArtifactRow | undefined> {
    const [row] = await this.db
      .select()
      .from(artifacts)
      .where(and(inOrg(artifacts.orgId, scope), eq(artifacts.conversationId, conversationId), eq(artifacts.id, id)));
    return row;
  }

  async findMany(scope: OrgScope, conversationId: string, ids: string[]): Promise<ArtifactRow[]> {
    if (ids.length === 0) return [];
    return this.db
      .select()
      .from(artifacts)
      .where(and(inOrg(artifacts.orgId, scope), eq(artifacts.conversationId, conversationId), inArray(artifacts.id, ids)));
  }
}
