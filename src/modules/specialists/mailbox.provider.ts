import { Injectable } from '@nestjs/common';
import { and, eq, ne } from 'drizzle-orm';
import { systemNow } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { hostedMailboxes, type HostedMailboxStatus } from './assignments.tables.js';

/**
 * What a hosted-workspace mailbox provider implements. `createMailbox` returns the provider's
 * user id (the OSA's `mailboxUserId`); the other calls act on that id and must be idempotent,
 * since a job may repeat them.
 */
export interface MailboxProvider {
  readonly name: string;
  createMailbox(input: { address: string; displayName: string; orgId: string }): Promise<{ userId: string }>;
  suspend(userId: string): Promise<void>;
  restore(userId: string): Promise<void>;
  archive(userId: string): Promise<void>;
}

export const MAILBOX_PROVIDER = Symbol('MAILBOX_PROVIDER');

/** The default provider: mailboxes kept in our own database. */
@Injectable()
export class DatabaseMailboxProvider implements MailboxProvider {
  readonly name = 'database';

  constructor(private readonly dbService: DbService) {}

  async createMailbox(input: { address: string; displayName: string; orgId: string }): Promise<{ userId: string }> {
    const db = this.dbService.db;
    const [existing] = await db
      .select({ id: hostedMailboxes.id })
      .from(hostedMailboxes)
      .where(and(eq(hostedMailboxes.address, input.address), ne(hostedMailboxes.status, 'deleted')));
    if (existing) return { userId: existing.id };
    const [row] = await db.insert(hostedMailboxes).values(input).returning({ id: hostedMailboxes.id });
    return { userId: row!.id };
  }

  suspend(userId: string): Promise<void> {
    return this.setStatus(userId, 'suspended');
  }

  restore(userId: string): Promise<void> {
    return this.setStatus(userId, 'active');
  }

  archive(userId: string): Promise<void> {
    return this.setStatus(userId, 'deleted');
  }

  private async setStatus(userId: string, status: HostedMailboxStatus): Promise<void> {
    await this.dbService.db.update(hostedMailboxes).set({ status, updatedAt: systemNow() }).where(eq(hostedMailboxes.id, userId));
  }
}
