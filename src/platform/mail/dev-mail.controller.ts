import { Controller, Get } from '@nestjs/common';
import { z } from 'zod';
import { DevMailItemSchema } from '../../contracts/auth.js';
import { Public } from '../auth/auth.decorators.js';
import { Endpoint, ValidQuery } from '../http/endpoint.js';
import { MailService } from './mail.service.js';

const DevMailQuerySchema = z.object({
  to: z.string().trim().toLowerCase().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/** The development outbox (API-MAP.md); this controller is not mounted in production. */
@Controller('dev/mail')
export class DevMailController {
  constructor(private readonly mail: MailService) {}

  @Get()
  @Public()
  @Endpoint({
    summary: 'List the development mail outbox, newest first (not in production); a mail that carried a code or link shows no body once erased (after 24 hours)',
    tags: ['dev'],
    query: DevMailQuerySchema,
    response: z.array(DevMailItemSchema),
  })
  async list(@ValidQuery() query: z.infer<typeof DevMailQuerySchema>) {
    const rows = await this.mail.list(query);
    return rows.map((r) => ({ id: r.id, to: r.to, subject: r.subject, text: r.text, html: r.html, createdAt: r.createdAt.toISOString(), erasedAt: r.erasedAt?.toISOString() ?? null }));
  }
}
