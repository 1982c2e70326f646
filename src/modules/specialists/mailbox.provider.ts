import { Injectable } from '@nestjs/common';
import { and, eq, ne } from 'drizzle-orm';
import { systemNow } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { hostedMailboxes, type HostedMailboxStatus } from './assignments.tables.js';

/**
 * What a hosted-workspace mailbox provider implements, for the org of the scope. `createMailbox`
 * returns the provider's user id (the OSA's `mailboxUserId`); the other calls act on that id and
 * must be idempotent, since a job may repeat them.
 */
export interface MailboxProvider {
  readonly name: string;
  createMailbox(scope: OrgScope, input: { address: string; displayName: string }): Promise<{ userId: string }>;
  suspend(scope: OrgScope, userId: string): Promise<void>;
  restore(scope: OrgScope, userId: string): Promise<void>;
  archive(scope: OrgScope, userId: string): Promise<void>;
}

export const MAILBOX_PROVIDER = Symbol('MAILBOX_PROVIDER');

/** The default provider: mailboxes kept in our own database. */
@Injectable()
export class DatabaseMailboxProvider implements MailboxProvider {
  readonly name = 'database';

  constructor(private readonly dbService: DbService) {}

  async createMailbox(scope: OrgScope, input: { address: string; displayName: string }): Promise<{ userId: string }> {
    const db = this.dbService.db;
    // A live address is unique platform wide (hosted_mailboxes_address_live), as at a real
    // provider: a repeated job finds the mailbox it made by its address.
    const [existing] = await db
      .select({ id: hostedMailboxes.id })
      .from(hostedMailboxes)
      .where(and(eq(hostedMailboxes.address, input.address), ne(hostedMailboxes.status, 'deleted')));
    if (existing) return { userId: existing.id };
    const [row] = await db
      .insert(hostedMailboxes)
      .values({ ...input, orgId: scope.orgId })
      .returning({ id: hostedMailboxes.id });
    return { userId: row!.id };
  }

  suspend(scope: OrgScope, userId: string): Promise<void> {
    return this.setStatus(scope, userId, 'suspended');
  }

  restore(scope: OrgScope, userId: string): Promise<void> {
    return this.setStatus(scope, userId, 'active');
  }

  archive(scope: OrgScope, userId: string): Promise<void> {
    return this.setStatus(scope, userId, 'deleted');
  }

  private async setStatus(scope: OrgScope, userId: string, status: HostedMailboxStatus): Promise<void> {
    await this.dbService.db
      .update(hostedMailboxes)
      .set({ status, updatedAt: systemNow() })
      .where(and(inOrg(hostedMailboxes.orgId, scope), eq(hostedMailboxes.id, userId)));
  }
}
