import { Controller, Get } from '@nestjs/common';
import { z } from 'zod';
import { AuditItemSchema } from '../../contracts/admin.js';
import { PlatformRoles } from '../auth/auth.decorators.js';
import { Endpoint, ValidQuery } from '../http/endpoint.js';
import { PageQuerySchema, decodeCursor, pageSchema } from '../http/pagination.js';
import { AuditService, auditPage } from './audit.service.js';

const AuditQuerySchema = PageQuerySchema.extend({
  actorId: z.uuid().optional(),
  resourceId: z.string().max(200).optional(),
  action: z.string().max(200).optional(),
  orgId: z.uuid().optional(),
});

/** The platform-wide audit log (spec 6.3): actions by and against anyone, newest first. */
@Controller('ops/audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @PlatformRoles('superadmin')
  @Endpoint({
    summary: 'Platform-wide audit log with filters (superadmin)',
    tags: ['audit'],
    query: AuditQuerySchema,
    response: pageSchema(AuditItemSchema),
  })
  async list(@ValidQuery() q: z.infer<typeof AuditQuerySchema>) {
    const rows = await this.audit.list(q, { limit: q.limit, after: decodeCursor(q.cursor) });
    return auditPage(rows, q.limit);
  }
}
