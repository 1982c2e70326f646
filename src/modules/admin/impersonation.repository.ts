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
      .where(and(eq(impersonationSessions.id, input.id), eq(impersonationSessions.impersonatorId, input.impersonatorId), eq(impersonationSessions.targetUserId, input.targetUserId), open(now)));
    return row;
  }

  async findById(id: string): Promise<ImpersonationSessionRow | undefined> {
    const [row] = await this.db.select().from(impersonationSessions).where(eq(impersonationSessions.id, id));
    return row;
  }

  /**
   * Ends open sessions: one by id, all of one impersonator, the one of a sign-in session, or all
   * where a user is on either side; returns those it ended.
   */
  async end(where: { id: string } | { impersonatorId: string } | { sessionId: string } | { userOnEitherSide: string }, now: Date): Promise<ImpersonationSessionRow[]> {
    const t = impersonationSessions;
    const which =
      'id' in where
        ? eq(t.id, where.id)
        : 'impersonatorId' in where
          ? eq(t.impersonatorId, where.impersonatorId)
          : 'sessionId' in where
            ? eq(t.sessionId, where.sessionId)
            : or(eq(t.impersonatorId, where.userOnEitherSide), eq(t.targetUserId, where.userOnEitherSide));
    return this.db
      .update(t)
      .set({ endedAt: now })
      .where(and(which, open(now)))
      .returning();
  }

  /** Newest first, keyset-paginated (`limit + 1` rows). */
  list(filter: { active?: boolean }, page: { limit: number; after?: Keyset }, now: Date): Promise<ImpersonationSessionRow[]> {
    const activity = filter.active === undefined ? undefined : filter.active ? open(now) : or(isNotNull(impersonationSessions.endedAt), sql`${impersonationSessions.expiresAt} <= ${now}`);
    return this.db
      .select()
      .from(impersonationSessions)
      .where(and(activity, olderThan(impersonationSessions.startedAt, impersonationSessions.id, page.after)))
      .orderBy(desc(impersonationSessions.startedAt), desc(impersonationSessions.id))
      .limit(page.limit + 1);
  }
}
