import { Controller, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { z } from 'zod';
import { CreateNotificationDtoSchema, NotificationDtoSchema, NotificationListQuerySchema, MarkAllReadResponseSchema } from '../../contracts/notifications.js';
import { CurrentPrincipal, OpenWhileSuspended, PlatformRoles } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidBody, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { NotificationsService } from './notifications.service.js';

const IdParamsSchema = z.object({ id: z.uuid() });

/**
 * Notifications are the user's own, not the org's: they stay readable while the org is suspended,
 * so a billing member can read the payment-failure notice that explains the suspension.
 */
@Controller('notifications')
@OpenWhileSuspended()
export class NotificationsController {
  constructor(private readonly notifications: NotificationsService) {}

  @Post()
  @HttpCode(201)
  @PlatformRoles('superadmin', 'account_manager', 'ai_operator')
  @Endpoint({
    summary: 'Create, store and push a notification (internal callers)',
    description: 'The row is stored first, then pushed as `notification:new` to the room `user:<userId>`.',
    tags: ['notifications'],
    body: CreateNotificationDtoSchema,
    response: NotificationDtoSchema,
    status: 201,
  })
  create(@ValidBody() body: z.infer<typeof CreateNotificationDtoSchema>) {
    return this.notifications.create(body);
  }

  @Get()
  @Endpoint({
    summary: "The caller's notifications, newest first",
    description: '`limit` defaults to 50 and is clamped to 1..200; `offset` defaults to 0. A bare array.',
    tags: ['notifications'],
    query: NotificationListQuerySchema,
    response: z.array(NotificationDtoSchema),
  })
  list(@CurrentPrincipal() principal: Principal, @ValidQuery() q: z.infer<typeof NotificationListQuerySchema>) {
    return this.notifications.list(principal.userId, q);
  }

  @Patch('read-all')
  @Endpoint({
    summary: "Mark all the caller's unread notifications read (only the caller's; idempotent)",
    description: "Answers how many were unread. Other users' notifications are never touched.",
    tags: ['notifications'],
    response: MarkAllReadResponseSchema,
  })
  markAllRead(@CurrentPrincipal() principal: Principal) {
    return this.notifications.markAllRead(principal.userId);
  }

  @Patch(':id/read')
  @Endpoint({
    summary: 'Mark one notification read (recipient only; idempotent)',
    tags: ['notifications'],
    params: IdParamsSchema,
    response: NotificationDtoSchema,
    errors: [403, 404],
  })
  markRead(@CurrentPrincipal() principal: Principal, @ValidParams() p: z.infer<typeof IdParamsSchema>) {
    return this.notifications.markRead(principal.userId, p.id);
  }
}
