import { Injectable } from '@nestjs/common';
import type { CreateNotificationDto, NotificationDto } from '../../contracts/notifications.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { logger } from '../../platform/observability/logger.js';
import { RealtimeService } from '../../platform/realtime/realtime.service.js';
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
    if (existing.recipientUserId !== userId) throw AppError.forbidden('This notification belongs to another user');
    if (existing.readAt) return toNotificationDto(existing);
    return toNotificationDto((await this.repo.markRead(id)) ?? existing);
  }
}
