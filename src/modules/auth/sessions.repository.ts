import { Injectable } from '@nestjs/common';
import { and, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { CallerLookup, CallerState } from '../../platform/auth/request-auth.js';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { principalFromJson, principalOf, type PrincipalJson } from '../users/index.js';
import { authSessions, type AuthSessionRow, type SessionEndReason } from './auth.tables.js';

export type SessionState = Pick<AuthSessionRow, 'userId' | 'expiresAt' | 'endedAt' | 'endReason'>;

type SessionJson = Omit<SessionState, 'expiresAt' | 'endedAt'> & { expiresAt: string; endedAt: string | null };

/** Sign-in sessions; queries only. */
@Injectable()
export class SessionsRepository implements CallerLookup {
  /**
   * The read every authenticated request makes: the token's user (its current state, from the
   * users module's SQL part) and its session by primary key, each a scalar subquery of one
   * prepared statement (either may be missing).
   */
  private readonly callerById: PreparedStatement<Array<{ user: PrincipalJson | null; session: SessionJson | null }>, { userId: string; sessionId: string }>;

  constructor(private readonly dbService: DbService) {
    this.callerById = dbService.prepared('auth_caller_by_ids', (db) =>
      db
        .select({
          user: principalOf(sql`${sql.placeholder('userId')}::uuid`),
          // Columns render unqualified in raw SQL: unambiguous here (one table).
          session: sql<SessionJson | null>`(select json_build_object('userId', ${authSessions.userId}, 'expiresAt', ${authSessions.expiresAt},
              'endedAt', ${authSessions.endedAt}, 'endReason', ${authSessions.endReason})
            from ${authSessions} where ${authSessions.id} = ${sql.placeholder('sessionId')}::uuid)`,
        })
        .from(sql`(select 1) as caller`),
    );
  }

  async caller(userId: string, sessionId: string): Promise<CallerState> {
    const [row] = await this.callerById({ userId, sessionId });
    const session = row?.session;
    return {
      user: row?.user ? principalFromJson(row.user) : null,
      session: session ? { ...session, expiresAt: new Date(session.expiresAt), endedAt: session.endedAt === null ? null : new Date(session.endedAt) } : undefined,
    };
  }

  private get db() {
    return this.dbService.db;
  }

  async insert(values: typeof authSessions.$inferInsert): Promise<AuthSessionRow> {
    const [row] = await this.db.insert(authSessions).values(values).returning();
    return row!;
  }

  async findById(id: string): Promise<AuthSessionRow | undefined> {
    const [row] = await this.db.select().from(authSessions).where(eq(authSessions.id, id));
    return row;
  }

  /** Ends the open sessions among `ids`, or every open session of `userId`; returns the ids it ended. */
  async end(where: { ids: string[] } | { userId: string }, reason: SessionEndReason, now: Date): Promise<string[]> {
    if ('ids' in where && where.ids.length === 0) return [];
    const rows = await this.db
      .update(authSessions)
      .set({ endedAt: now, endReason: reason })
      .where(and('ids' in where ? inArray(authSessions.id, where.ids) : eq(authSessions.userId, where.userId), isNull(authSessions.endedAt)))
      .returning({ id: authSessions.id });
    return rows.map((r) => r.id);
  }

  /** Deletes sessions that expired before `before`; returns how many. */
  async deleteExpiredBefore(before: Date): Promise<number> {
    const rows = await this.db.delete(authSessions).where(lt(authSessions.expiresAt, before)).returning({ id: authSessions.id });
    return rows.length;
  }
}
