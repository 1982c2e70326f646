import { Injectable } from '@nestjs/common';
import { and, eq, inArray, ne } from 'drizzle-orm';
import { DbService } from '../../platform/db/db.service.js';
import { orgs, type NewOrgRow, type OrgRow } from './orgs.tables.js';

@Injectable()
export class OrgsRepository {
  constructor(private readonly dbService: DbService) {}

  private get db() {
    return this.dbService.db;
  }

  async findById(id: string): Promise<OrgRow | undefined> {
    const [row] = await this.db.select().from(orgs).where(eq(orgs.id, id));
    return row;
  }

  /** The org holding a slug (deactivated orgs release theirs to nobody but keep the row). */
  async findBySlug(slug: string): Promise<OrgRow | undefined> {
    const [row] = await this.db
      .select()
      .from(orgs)
      .where(and(eq(orgs.slug, slug), ne(orgs.status, 'deactivated')));
    return row;
  }

  async findByIds(ids: string[]): Promise<OrgRow[]> {
    if (ids.length === 0) return [];
    return this.db.select().from(orgs).where(inArray(orgs.id, ids));
  }

  async insert(values: NewOrgRow): Promise<OrgRow> {
    const [row] = await this.db.insert(orgs).values(values).returning();
    return row!;
  }
}
