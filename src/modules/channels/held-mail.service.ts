import { Injectable } from '@nestjs/common';
import type { MessageDelivery } from '../../contracts/conversations.js';
import { DbService } from '../../platform/db/db.service.js';
import type { DurableDomainEvents } from '../../platform/events/domain-events.js';
import { OnDurableEvent } from '../../platform/events/on-event.decorator.js';
import { MailService } from '../../platform/mail/mail.service.js';
import { QueueService } from '../../platform/queue/queue.service.js';
import { jobScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { MessageDeliveries, type DeliveryPort } from '../conversations/index.js';
import { AssignmentsService } from '../specialists/index.js';
import { ChannelMetrics } from './channel-metrics.js';
import { ChannelsRepository } from './channels.repository.js';
import type { OutboundRow, OutboundStatus } from './channels.tables.js';
import { sendEmailReply } from './outbound.senders.js';

declare module '../../platform/queue/jobs.js' {
  interface JobMap {
    /** Send the mail an OSA's mailbox held while it was suspended (spec 3.3), in the order it was written. */
    'channels.outbound-released': { orgId: string; assignmentId: string };
  }
}

const DELIVERY_OF: Record<OutboundStatus, MessageDelivery> = { held: 'held', pending: 'queued', sending: 'queued', sent: 'sent', failed: 'failed' };

/**
 * Mail held while a mailbox is suspended (spec 3.3: "outbound mail stops"; Restore "re-enables
 * mail"). A reply written meanwhile is kept `held` in the outbox; Restore emits the durable
 * `specialists.mailbox_restored`, whose handler sends the OSA's held mail oldest first, one row per
 * transaction: the row is locked, written to the mail outbox and marked sent together, so two
 * workers (or a retried job) send each mail once, and a later one is sent only after every earlier
 * one. A newer reply of that mailbox waits behind older held mail. A periodic sweep releases held
 * mail whose mailbox is active again; `channels.outbound-released` releases mail held back behind it.
 */
@Injectable()
export class HeldMailService implements DeliveryPort {
  constructor(
    private readonly repo: ChannelsRepository,
    private readonly assignments: AssignmentsService,
    private readonly queue: QueueService,
    private readonly dbService: DbService,
    private readonly mail: MailService,
    private readonly deliveries: MessageDeliveries,
    private readonly metrics: ChannelMetrics,
  ) {}

  /**
   * Delivered at least once from the outbox written with the restore: idempotent, as every release
   * sends only mail still held, each row claimed under its lock.
   */
  @OnDurableEvent('specialists.mailbox_restored')
  async restored({ orgId, assignmentId }: DurableDomainEvents['specialists.mailbox_restored']): Promise<void> {
    await this.release(orgId, assignmentId);
  }

  /**
   * For the dispatcher, before an email reply is sent: true when it must be held, because its
   * mailbox is suspended or archived, or because older mail of that mailbox is still held (it then
   * goes out behind them, so the release is queued again).
   */
  async holdsBack(row: OutboundRow): Promise<boolean> {
    const osa = await this.senderOf(row);
    if (!osa || stopped(osa)) return true;
    if (!(await this.heldOf(row.orgId, osa.id, row.createdAt))) return false;
    await this.queueRelease(row.orgId, osa.id);
    return true;
  }

  /** The job: sends the OSA's held mail, oldest first, until none is left or the mailbox stops again. */
  async release(orgId: string, assignmentId: string): Promise<number> {
    const scope = jobScope({ orgId });
    let sent = 0;
    for (;;) {
      const next = await this.heldOf(orgId, assignmentId);
      if (!next) return sent;
      const outcome = await this.dbService.transaction(async () => {
        const row = await this.repo.lockHeld(scope, next.id);
        // Another worker sent it meanwhile (this one waited for its lock): on to the next.
        if (!row) return 'taken';
        const osa = await this.assignments.get(scope, assignmentId).catch(() => undefined);
        if (!osa || stopped(osa)) return 'stopped';
        const { externalId } = await sendEmailReply(this.mail, { outboundId: row.id, content: row.content, target: row.target });
        await this.repo.markOutboundSent(scope, row.id, externalId);
        this.dbService.afterCommit(() => this.deliveries.changed({ orgId: row.orgId, conversationId: row.conversationId, messageId: row.messageId }, 'sent'));
        return 'sent';
      });
      if (outcome === 'stopped') return sent;
      if (outcome === 'sent') {
        sent++;
        this.metrics.sent('email', 'sent');
      }
    }
  }

  /** The sweep: held mail whose mailbox is active again gets its release queued. */
  async releaseStranded(): Promise<number> {
    let queued = 0;
    for (const { orgId, from } of await this.repo.unscopedHeldSenders()) {
      const osa = from ? await this.assignments.findByAlias(from) : undefined;
      if (!osa || osa.orgId !== orgId || stopped(osa)) continue;
      await this.queueRelease(orgId, osa.id);
      queued++;
    }
    return queued;
  }

  /** The DeliveryPort of the conversations module. */
  async deliveryOf(scope: OrgScope, messageIds: string[]): Promise<Map<string, MessageDelivery>> {
    return new Map((await this.repo.outboundStatuses(scope, messageIds)).map((r) => [r.messageId, DELIVERY_OF[r.status]]));
  }

  private async queueRelease(orgId: string, assignmentId: string): Promise<void> {
    await this.queue.send('channels.outbound-released', { orgId, assignmentId });
  }

  /** The OSA's oldest held mail (written before `before` when given), whichever of its addresses it left from. */
  private async heldOf(orgId: string, assignmentId: string, before?: Date): Promise<OutboundRow | undefined> {
    const senders = new Map<string, string | undefined>();
    for (const row of await this.repo.heldOutbound(jobScope({ orgId }), before)) {
      const from = String(row.target.from ?? '');
      if (!senders.has(from)) senders.set(from, (await this.senderOf(row))?.id);
      if (senders.get(from) === assignmentId) return row;
    }
    return undefined;
  }

  private senderOf(row: OutboundRow) {
    return this.assignments.findByAlias(typeof row.target.from === 'string' ? row.target.from : '');
  }
}

function stopped(osa: { mailboxSuspendedAt: string | null; mailboxArchivedAt: string | null }): boolean {
  return Boolean(osa.mailboxSuspendedAt || osa.mailboxArchivedAt);
}
