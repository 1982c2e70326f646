import { Injectable } from '@nestjs/common';
import { asc, eq } from 'drizzle-orm';
import { DbService } from '../../platform/db/db.service.js';
import { specialists, type SpecialistRow } from './specialists.tables.js';

@Injectable()
export class SpecialistsRepository {
  constructor(private readonly dbService: DbService) {}

  async list(): Promise<SpecialistRow[]> {
    return this.dbService.db.select().from(specialists).orderBy(asc(specialists.name));
  }

  async findBySlug(slug: string): Promise<SpecialistRow | undefined> {
    const [row] = await this.dbService.db.select().from(specialists).where(eq(specialists.slug, slug));
    return row;
  }

  async insert(values: typeof specialists.$inferInsert): Promise<SpecialistRow> {
    const [row] = await this.dbService.db.insert(specialists).values(values).returning();
    return row!;
  }
}
