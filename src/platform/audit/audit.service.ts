import { Injectable } from '@nestjs/common';
import { and, desc, eq, lt, or } from 'drizzle-orm';
import { DbService } from '../db/db.service.js';
import type { Keyset } from '../http/pagination.js';
import { logger } from '../observability/logger.js';
import { auditLog, type AuditRow } from './audit.tables.js';

export interface AuditFilter {
  actorId?: string;
  resourceId?: string;
  action?: string;
  orgId?: string;
  since?: Date;
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

/**
 * Best-effort audit writer (spec 2.10): inside a transaction the row is written after the commit,
 * on its own; a failed audit write is logged and never undoes the business write.
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

  /** Newest first, keyset-paginated; `limit + 1` rows so the caller can tell whether more exist. */
  async list(filter: AuditFilter, page: { limit: number; after?: Keyset }): Promise<AuditRow[]> {
    const after = page.after;
    return this.dbService.db
      .select()
      .from(auditLog)
      .where(
        and(
          filter.actorId ? eq(auditLog.userId, filter.actorId) : undefined,
          filter.resourceId ? eq(auditLog.resourceId, filter.resourceId) : undefined,
          filter.action ? eq(auditLog.action, filter.action) : undefined,
          filter.orgId ? eq(auditLog.orgId, filter.orgId) : undefined,
          after ? or(lt(auditLog.createdAt, after.at), and(eq(auditLog.createdAt, after.at), lt(auditLog.id, after.id))) : undefined,
        ),
      )
      .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
      .limit(page.limit + 1);
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
