import { Injectable } from '@nestjs/common';
import { and, count, desc, eq, gte, lt, min, or, type SQL } from 'drizzle-orm';
import { DbService } from '../db/db.service.js';
import { olderThan } from '../db/query-parts.js';
import { pageOf, type Keyset } from '../http/pagination.js';
import { logger } from '../observability/logger.js';
import { auditLog, type AuditRow } from './audit.tables.js';

export interface AuditFilter {
  actorId?: string;
  resourceId?: string;
  action?: string;
  orgId?: string;
  since?: Date;
  /** Rows before this instant (excluded). */
  until?: Date;
  /** Rows the user took part in: as the actor, or as the SuperAdmin impersonating the actor. */
  involving?: string;
  /** Rows about the user: as the actor, the impersonating SuperAdmin, or the target. */
  about?: string;
}

function matching(filter: AuditFilter): SQL | undefined {
  return and(
    filter.actorId ? eq(auditLog.userId, filter.actorId) : undefined,
    filter.resourceId ? eq(auditLog.resourceId, filter.resourceId) : undefined,
    filter.action ? eq(auditLog.action, filter.action) : undefined,
    filter.orgId ? eq(auditLog.orgId, filter.orgId) : undefined,
    filter.since ? gte(auditLog.createdAt, filter.since) : undefined,
    filter.until ? lt(auditLog.createdAt, filter.until) : undefined,
    filter.about ? or(eq(auditLog.userId, filter.about), eq(auditLog.impersonatorId, filter.about), eq(auditLog.resourceId, filter.about)) : undefined,
    filter.involving ? or(eq(auditLog.userId, filter.involving), eq(auditLog.impersonatorId, filter.involving)) : undefined,
  );
}

export interface AuditEntry {
  action: string;
  /** The acting user. */
  userId?: string | null;
  /** The target. */
  resourceId?: string | null;
  orgId?: string | null;
  impersonatorId?: string | null;
  meta?: Record<string, unknown>;
}

/** What a SuperAdmin did while impersonating (spec 5.8): one request, or one socket join. */
export interface ImpersonatedAction {
  method: string;
  route: string | null;
  path: string | null;
  target: string | null;
  statusCode: number;
  orgId: string | null;
  /** Anything the entry point adds (a socket join names its conversation). */
  extra?: Record<string, unknown>;
}

/** The wire shape of a row (contracts AuditItemSchema). */
export function auditItemOf(row: AuditRow) {
  return { ...row, createdAt: row.createdAt.toISOString() };
}

/** One page of rows on the wire: `{ items, nextCursor }`. */
export function auditPage(rows: AuditRow[], limit: number) {
  return pageOf(rows, limit, (r) => ({ at: r.createdAt, id: r.id }), auditItemOf);
}

/**
 * Best-effort audit writer (spec 2.10): inside a transaction the row is written after the commit,
 * on its own; a failed audit write is logged and never undoes the business write.
 *
 * The audit log is platform wide: one log of every org's actions (the org is a field of the entry,
 * with no foreign key, so rows outlive their org), read only by the SuperAdmin's viewer and the
 * platform's own limits. Its readers are therefore `unscoped*`; writing records the org the entry names.
 */
@Injectable()
export class AuditService {
  constructor(private readonly dbService: DbService) {}

  record(entry: AuditEntry): Promise<void> {
    if (this.dbService.inTransaction) {
      this.dbService.afterCommit(() => this.write(entry));
      return Promise.resolve();
    }
    return this.write(entry);
  }

  /**
   * The one `impersonation.action` row of an action made with an impersonation token: the user acted
   * as, the impersonator, the impersonation session, and what was done with which outcome.
   */
  recordImpersonatedAction(actor: { userId: string; impersonatorId?: string; impersonationId?: string }, action: ImpersonatedAction): Promise<void> {
    return this.record({
      action: 'impersonation.action',
      userId: actor.userId,
      impersonatorId: actor.impersonatorId ?? null,
      resourceId: actor.impersonationId ?? null,
      orgId: action.orgId,
      meta: {
        impersonationId: actor.impersonationId,
        method: action.method,
        route: action.route,
        path: action.path,
        target: action.target,
        statusCode: action.statusCode,
        ...action.extra,
      },
    });
  }

  /** Newest first, keyset-paginated; `limit + 1` rows so the caller can tell whether more exist. */
  async unscopedList(filter: AuditFilter, page: { limit: number; after?: Keyset }): Promise<AuditRow[]> {
    return this.dbService.db
      .select()
      .from(auditLog)
      .where(and(matching(filter), olderThan(auditLog.createdAt, auditLog.id, page.after)))
      .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
      .limit(page.limit + 1);
  }

  /** How many rows match, and the oldest of them: enough to run a limit counted from audit rows. */
  async unscopedTally(filter: AuditFilter): Promise<{ count: number; oldestAt: Date | null }> {
    const [row] = await this.dbService.db
      .select({ n: count(), oldest: min(auditLog.createdAt) })
      .from(auditLog)
      .where(matching(filter));
    return { count: Number(row?.n ?? 0), oldestAt: row?.oldest ? new Date(row.oldest) : null };
  }

  private async write(entry: AuditEntry): Promise<void> {
    try {
      await this.dbService.root.insert(auditLog).values({
        action: entry.action,
        userId: entry.userId ?? null,
        resourceId: entry.resourceId ?? null,
        orgId: entry.orgId ?? null,
        impersonatorId: entry.impersonatorId ?? null,
        meta: entry.meta ?? null,
      });
    } catch (err) {
      logger.error({ err, action: entry.action, resourceId: entry.resourceId }, 'audit write failed (business write kept)');
    }
  }
}
