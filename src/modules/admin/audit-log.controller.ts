import { Controller, Get } from '@nestjs/common';
import type { z } from 'zod';
import { AuditItemSchema, AuditQuerySchema } from '../../contracts/admin.js';
import { PlatformRoles } from '../../platform/auth/auth.decorators.js';
import { Endpoint, ValidQuery } from '../../platform/http/endpoint.js';
import { pageSchema } from '../../platform/http/pagination.js';
import { AuditLogService } from './audit-log.service.js';

/** The platform-wide audit log (spec 6.3): actions by and against anyone, newest first. */
@Controller('ops/audit')
export class AuditLogController {
  constructor(private readonly log: AuditLogService) {}

  @Get()
  @PlatformRoles('superadmin')
  @Endpoint({
    summary: 'Platform-wide audit log with filters (superadmin)',
    description:
      'Filters combine: `userId` (rows the user performed, took part in as the impersonating SuperAdmin, or was the target of), `actorId`, `resourceId`, `orgId`, `action`, and a `from` / `to` range of days (UTC) or instants. Each row carries `refs`: the names of the users, orgs, Specialists and assignments its ids name.',
    tags: ['audit'],
    query: AuditQuerySchema,
    response: pageSchema(AuditItemSchema),
  })
  list(@ValidQuery() q: z.infer<typeof AuditQuerySchema>) {
    return this.log.list(q);
  }
}
