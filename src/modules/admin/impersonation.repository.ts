import { Injectable } from '@nestjs/common';
import { and, desc, eq, gt, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm';
import { DbService } from '../../platform/db/db.service.js';
import { olderThan } from '../../platform/db/query-parts.js';
import type { Keyset } from '../../platform/http/pagination.js';
import { impersonationSessions, type ImpersonationSessionRow } from './admin.tables.js';

/** An open session: not stopped and not past its expiry. */
const open = (now: Date): SQL => and(isNull(impersonationSessions.endedAt), gt(impersonationSessions.expiresAt, now))!;

/** Impersonation sessions; queries only. */
@Injectable()
export class ImpersonationRepository {
  constructor(private readonly dbService: DbService) {}

  private get db() {
    return this.dbService.db;
  }

  async insert(values: typeof impersonationSessions.$inferInsert): Promise<ImpersonationSessionRow> {
    const [row] = await this.db.insert(impersonationSessions).values(values).returning();
    return row!;
  }

  async findOpen(input: { id: string; impersonatorId: string; targetUserId: string }, now: Date): Promise<ImpersonationSessionRow | undefined> {
    const [row] = await this.db
      .select()
      .from(impersonationSessions)
      .where(
        and(
          eq(impersonationSessions.id, input.id),
          eq(impersonationSessions.impersonatorId, input.impersonatorId),
          eq(impersonationSessions.targetUserId, input.targetUserId),
          open(now),
        ),
      );
    return row;
  }

  /** Ends open sessions (one by id, or all of one impersonator); returns those it ended. */
  async end(where: { id?: string; impersonatorId?: string }, now: Date): Promise<ImpersonationSessionRow[]> {
    return this.db
      .update(impersonationSessions)
      .set({ endedAt: now })
      .where(
        and(
          where.id ? eq(impersonationSessions.id, where.id) : undefined,
          where.impersonatorId ? eq(impersonationSessions.impersonatorId, where.impersonatorId) : undefined,
          open(now),
        ),
      )
      .returning();
  }

  /** Newest first, keyset-paginated (`limit + 1` rows). */
  list(filter: { active?: boolean }, page: { limit: number; after?: Keyset }, now: Date): Promise<ImpersonationSessionRow[]> {
    const activity =
      filter.active === undefined
        ? undefined
        : filter.active
          ? open(now)
          : or(isNotNull(impersonationSessions.endedAt), sql`${impersonationSessions.expiresAt} <= ${now}`);
    return this.db
      .select()
      .from(impersonationSessions)
      .where(and(activity, olderThan(impersonationSessions.startedAt, impersonationSessions.id, page.after)))
      .orderBy(desc(impersonationSessions.startedAt), desc(impersonationSessions.id))
      .limit(page.limit + 1);
  }
}
