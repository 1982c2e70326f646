import { Injectable } from '@nestjs/common';
import { DbService } from '../db/db.service.js';
import { logger } from '../observability/logger.js';
import { auditLog } from './audit.tables.js';

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
