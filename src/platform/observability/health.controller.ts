import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { Public } from '../auth/auth.decorators.js';
import { DbService } from '../db/db.service.js';
import { Endpoint } from '../http/endpoint.js';
import { QueueService } from '../queue/queue.service.js';
import { Metrics } from './metrics.js';

const HealthSchema = z.object({ status: z.literal('ok') });
const ReadySchema = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.object({ database: z.boolean(), migrations: z.boolean(), queue: z.boolean() }),
});

/** Operational endpoints; each also answers at the root (`/health`, `/ready`, `/metrics`). */
@Controller()
export class HealthController {
  constructor(
    private readonly dbService: DbService,
    private readonly queue: QueueService,
    @Inject(Metrics) private readonly metrics: Metrics,
  ) {}

  @Get('health')
  @Public()
  @Endpoint({ summary: 'Liveness: the process answers', tags: ['operations'], response: HealthSchema, status: 200 })
  health() {
    return { status: 'ok' as const };
  }

  @Get('ready')
  @Public()
  @Endpoint({
    summary: 'Readiness: database reachable, migrations applied, job queue started (503 otherwise)',
    tags: ['operations'],
    response: ReadySchema,
    errors: [503],
  })
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const checks = { database: await this.dbService.ping(), migrations: this.dbService.migrated, queue: this.queue.started };
    const ok = checks.database && checks.migrations && checks.queue;
    if (!ok) reply.status(503);
    return { status: ok ? ('ready' as const) : ('not_ready' as const), checks };
  }

  @Get('metrics')
  @Public()
  @Header('Cache-Control', 'no-store')
  @Endpoint({ summary: 'Prometheus metrics (text exposition format)', tags: ['operations'] })
  async metricsText(@Res() reply: FastifyReply) {
    const body = await this.metrics.registry.metrics();
    void reply.header('content-type', this.metrics.registry.contentType).send(body);
  }
}
