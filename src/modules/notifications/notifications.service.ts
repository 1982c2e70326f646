import { Injectable } from '@nestjs/common';
import type { CreateNotificationDto, NotificationDto } from '../../contracts/notifications.js';
import { DbService } from '../../platform/db/db.service.js';
import type { DomainEvents, DurableDomainEvents } from '../../platform/events/domain-events.js';
import { OnDurableEvent, OnEvent } from '../../platform/events/on-event.decorator.js';
import { AppError } from '../../platform/errors/app-error.js';
import { logger } from '../../platform/observability/logger.js';
import { RealtimeService } from '../../platform/realtime/realtime.service.js';
import { markReadOutcome } from './notifications.read.js';
import './notifications.events.js';
import { NotificationsRepository } from './notifications.repository.js';
import type { AppNotificationRow } from './notifications.tables.js';

export interface NotifyInput {
  userId: string;
  type: string;
  message: string;
  title?: string | null;
  meta?: Record<string, unknown> | null;
}

export function toNotificationDto(row: AppNotificationRow): NotificationDto {
  return {
    id: row.id,
    userId: row.recipientUserId,
    type: row.eventType,
    message: row.body,
    title: row.title,
    meta: row.meta,
    readAt: row.readAt ? row.readAt.toISOString() : null,
  };
}

/**
 * The one notification service every producer calls. The row is stored first; the push follows
 * once it is committed, and a failed push leaves the row for the next GET (spec 6.1.1). No dedupe
 * by recipient and type: callers own idempotency (spec 6.1.3).
 */
@Injectable()
export class NotificationsService {
  constructor(
    private readonly repo: NotificationsRepository,
    private readonly dbService: DbService,
    private readonly realtime: RealtimeService,
  ) {}

  async notify(input: NotifyInput): Promise<NotificationDto> {
    const row = await this.repo.insert({
      recipientUserId: input.userId,
      eventType: input.type,
      title: input.title ?? null,
      body: input.message,
      meta: input.meta ?? null,
    });
    const dto = toNotificationDto(row);
    this.dbService.afterCommit(() => this.realtime.toUser(dto.userId, 'notification:new', dto));
    return dto;
  }

  /** Several recipients, best-effort per recipient: one failure does not block the rest. */
  async notifyEach(userIds: string[], input: Omit<NotifyInput, 'userId'>): Promise<{ sent: NotificationDto[]; failed: string[] }> {
    const sent: NotificationDto[] = [];
    const failed: string[] = [];
    for (const userId of new Set(userIds)) {
      try {
        sent.push(await this.notify({ ...input, userId }));
      } catch (err) {
        failed.push(userId);
        logger.error({ err, userId, type: input.type }, 'notification for one recipient failed');
      }
    }
    return { sent, failed };
  }

  /** Other modules' notifications (their `notifications.requested` events). */
  @OnEvent('notifications.requested')
  async notifyRequested({ userIds, notice }: DomainEvents['notifications.requested']): Promise<void> {
    await this.notifyEach(userIds, notice);
  }

  /**
   * Other modules' notifications that must not be lost (`notifications.owed`, from the job queue):
   * the row commits with the job's completion, so a redelivered job writes no second one.
   */
  @OnDurableEvent('notifications.owed', { atomic: true })
  async notifyOwed({ userId, notice }: DurableDomainEvents['notifications.owed']): Promise<void> {
    await this.notify({ ...notice, userId });
  }

  create(dto: CreateNotificationDto): Promise<NotificationDto> {
    return this.notify(dto);
  }

  async list(userId: string, page: { limit: number; offset: number }): Promise<NotificationDto[]> {
    return (await this.repo.listForRecipient(userId, page)).map(toNotificationDto);
  }

  /** The recipient only (403 for anyone else, spec 7.2); `read_at` is set once. */
  async markRead(userId: string, id: string): Promise<NotificationDto> {
    const existing = await this.repo.findById(id);
    if (!existing) throw AppError.notFound('Notification');
    const outcome = markReadOutcome(existing, userId);
    if (outcome === 'forbidden') throw AppError.forbidden('This notification belongs to another user');
    if (outcome === 'unchanged') return toNotificationDto(existing);
    return toNotificationDto((await this.repo.markRead(id)) ?? existing);
  }

  /** Every unread notification of the caller read at once; nobody else's is touched. */
  async markAllRead(userId: string): Promise<{ updated: number }> {
    return { updated: await this.repo.markAllRead(userId) };
  }
}
