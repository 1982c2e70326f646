import { Injectable } from '@nestjs/common';
import { and, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import { OrgAccessGate } from '../../platform/auth/org-access-gate.js';
import type { CallerLookup, CallerState } from '../../platform/auth/request-auth.js';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { memberOrgIdsOf, principalFromJson, principalOf, type PrincipalJson } from '../users/index.js';
import { authSessions, type AuthSessionRow, type SessionEndReason } from './auth.tables.js';

export type SessionState = Pick<AuthSessionRow, 'userId' | 'expiresAt' | 'endedAt' | 'endReason'>;

type SessionJson = Omit<SessionState, 'expiresAt' | 'endedAt'> & { expiresAt: string; endedAt: string | null };

/** Sign-in sessions; queries only. */
@Injectable()
export class SessionsRepository implements CallerLookup {
  /**
   * The read every authenticated request makes: the token's user (its current state, from the
   * users module's SQL part), its session by primary key, and which of the user's member orgs
   * have their access gate closed (the gate's own rule, `OrgAccessGate.closedAmongSql`), each a
   * scalar subquery of one prepared statement (the user or the session may be missing). Built at
   * its first use, once the app has started: the gate's rule comes from another module.
   */
  private callerById?: PreparedStatement<Array<{ user: PrincipalJson | null; session: SessionJson | null; closedOrgIds: string[] | null }>, { userId: string; sessionId: string }>;

  constructor(
    private readonly dbService: DbService,
    private readonly accessGate: OrgAccessGate,
  ) {}

  private callerStatement() {
    this.callerById ??= this.dbService.prepared('auth_caller_by_ids', (db) => {
      const userId = sql`${sql.placeholder('userId')}::uuid`;
      return db
        .select({
          user: principalOf(userId),
          // Columns render unqualified in raw SQL: unambiguous here (one table).
          session: sql<SessionJson | null>`(select json_build_object('userId', ${authSessions.userId}, 'expiresAt', ${authSessions.expiresAt},
              'endedAt', ${authSessions.endedAt}, 'endReason', ${authSessions.endReason})
            from ${authSessions} where ${authSessions.id} = ${sql.placeholder('sessionId')}::uuid)`,
          closedOrgIds: this.accessGate.closedAmongSql(memberOrgIdsOf(userId)),
        })
        .from(sql`(select 1) as caller`);
    });
    return this.callerById;
  }

  async caller(userId: string, sessionId: string): Promise<CallerState> {
    const [row] = await this.callerStatement()({ userId, sessionId });
    const session = row?.session;
    return {
      user: row?.user ? principalFromJson(row.user) : null,
      session: session ? { ...session, expiresAt: new Date(session.expiresAt), endedAt: session.endedAt === null ? null : new Date(session.endedAt) } : undefined,
      // Never "none closed" for want of an answer: without one the gate reads the orgs itself.
      closedOrgIds: row?.closedOrgIds ?? undefined,
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
