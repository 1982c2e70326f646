import { Controller, Get } from '@nestjs/common';
import { z } from 'zod';
import { QueueFiltersDtoSchema, QueueItemDtoSchema, QueueQuerySchema, QuotaDtoSchema, type QueueQuery } from '../../contracts/conversations.js';
import { CurrentPrincipal, PlatformRoles } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AppError } from '../../platform/errors/app-error.js';
import { Endpoint, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { pageSchema } from '../../platform/http/pagination.js';
import { ConversationAccess } from './conversation-access.service.js';
import { ExpertQueueService } from './expert-queue.service.js';
import { MessageQuotaService } from './message-quota.service.js';

/** The Expert attention list (spec 4.4): escalations and genuine failures, scoped by grants. */
@Controller('expert-queue')
@PlatformRoles('expert', 'account_manager', 'superadmin')
export class ExpertQueueController {
  constructor(private readonly queue: ExpertQueueService) {}

  @Get()
  @Endpoint({
    summary: 'The attention list: tabs all, pending, awaiting_client, resolved, snoozed',
    tags: ['conversations'],
    query: QueueQuerySchema,
    response: pageSchema(QueueItemDtoSchema),
  })
  list(@CurrentPrincipal() p: Principal, @ValidQuery() q: QueueQuery) {
    return this.queue.list(p, q);
  }

  @Get('filters')
  @Endpoint({
    summary: "What the attention list can be filtered by: the orgs and Specialists of the caller's items, and the active Experts",
    tags: ['conversations'],
    response: QueueFiltersDtoSchema,
  })
  filters(@CurrentPrincipal() p: Principal) {
    return this.queue.filters(p);
  }
}

const OrgParams = z.object({ orgId: z.uuid() });

/** The org message quota and its usage (spec 4.6, 7.1). */
@Controller('orgs')
export class QuotaController {
  constructor(
    private readonly quota: MessageQuotaService,
    private readonly access: ConversationAccess,
  ) {}

  @Get(':orgId/quota')
  @Endpoint({ summary: 'The org message quota (per hour) and its usage', tags: ['conversations'], params: OrgParams, response: QuotaDtoSchema, errors: [404] })
  async get(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof OrgParams>) {
    if (!(await this.access.reachesOrg(p, params.orgId))) throw AppError.notFound('Organization');
    return this.quota.usage(params.orgId);
  }
}
