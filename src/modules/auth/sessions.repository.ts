import { Injectable } from '@nestjs/common';
import { and, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { authSessions, type AuthSessionRow, type SessionEndReason } from './auth.tables.js';

export type SessionState = Pick<AuthSessionRow, 'userId' | 'expiresAt' | 'endedAt' | 'endReason'>;

/** Sign-in sessions; queries only. */
@Injectable()
export class SessionsRepository {
  /** The read every authenticated request makes (beside the user's): by primary key, prepared. */
  private readonly stateById: PreparedStatement<SessionState[], { id: string }>;

  constructor(private readonly dbService: DbService) {
    this.stateById = dbService.prepared('auth_sessions_state_by_id', (db) =>
      db
        .select({ userId: authSessions.userId, expiresAt: authSessions.expiresAt, endedAt: authSessions.endedAt, endReason: authSessions.endReason })
        .from(authSessions)
        .where(eq(authSessions.id, sql.placeholder('id'))),
    );
  }

  private get db() {
    return this.dbService.db;
  }

  async insert(values: typeof authSessions.$inferInsert): Promise<AuthSessionRow> {
    const [row] = await this.db.insert(authSessions).values(values).returning();
    return row!;
  }

  async state(id: string): Promise<SessionState | undefined> {
    const [row] = await this.stateById({ id });
    return row;
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
