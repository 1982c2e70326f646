import { Controller, Get } from '@nestjs/common';
import { z } from 'zod';
import { PlatformRoles } from '../auth/auth.decorators.js';
import { Endpoint, ValidQuery } from '../http/endpoint.js';
import { PageQuerySchema, decodeCursor, pageOf, pageSchema } from '../http/pagination.js';
import { AuditService } from './audit.service.js';

const AuditQuerySchema = PageQuerySchema.extend({
  actorId: z.uuid().optional(),
  resourceId: z.string().max(200).optional(),
  action: z.string().max(200).optional(),
  orgId: z.uuid().optional(),
});

const AuditItemSchema = z.object({
  id: z.uuid(),
  action: z.string(),
  userId: z.uuid().nullable(),
  resourceId: z.string().nullable(),
  orgId: z.uuid().nullable(),
  impersonatorId: z.uuid().nullable(),
  meta: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
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
    return pageOf(
      rows,
      q.limit,
      (r) => ({ at: r.createdAt, id: r.id }),
      (r) => ({ ...r, createdAt: r.createdAt.toISOString() }),
    );
  }
}
