import { Controller, Get, Header, Headers, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { OwnBearer, Public } from '../auth/auth.decorators.js';
import { APP_CONFIG } from '../config/config.token.js';
import type { AppConfig } from '../config/config.js';
import { safeEqual, sha256Hex } from '../crypto/crypto.js';
import { AppError } from '../errors/app-error.js';
import { DbService } from '../db/db.service.js';
import { Endpoint } from '../http/endpoint.js';
import { Probe, type ProbeReply } from '../http/probe.js';
import { QueueService } from '../queue/queue.service.js';
import { Metrics } from './metrics.js';

const HealthSchema = z.object({ status: z.literal('ok') });
const ReadySchema = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.object({ database: z.boolean(), migrations: z.boolean(), queue: z.boolean() }),
});

/**
 * Operational endpoints; each also answers at the root (`/health`, `/ready`, `/metrics`). The two
 * probes are answered at the server's door (`@Probe()`); the metrics go through the whole pipeline (their
 * bearer in production, the throttle).
 */
@Controller()
export class HealthController {
  constructor(
    private readonly dbService: DbService,
    private readonly queue: QueueService,
    @Inject(Metrics) private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('health')
  @Probe()
  @Endpoint({
    summary: 'Liveness: the process answers',
    description: 'A probe: answered before the request pipeline (no token read, not throttled, no request id).',
    tags: ['operations'],
    response: HealthSchema,
    status: 200,
  })
  health() {
    return { status: 'ok' as const };
  }

  @Get('ready')
  @Probe()
  @Endpoint({
    summary: 'Readiness: database reachable, migrations applied, job queue started (503 otherwise)',
    description: 'A probe: answered before the request pipeline (no token read, not throttled, no request id); it reads the database each time.',
    tags: ['operations'],
    response: ReadySchema,
    errors: [503],
  })
  async ready(reply: ProbeReply) {
    const checks = { database: await this.dbService.ping(), migrations: this.dbService.migrated, queue: this.queue.started };
    const ok = checks.database && checks.migrations && checks.queue;
    if (!ok) reply.status(503);
    return { status: ok ? ('ready' as const) : ('not_ready' as const), checks };
  }

  @Get('metrics')
  @Public()
  @OwnBearer()
  @Header('Cache-Control', 'no-store')
  @Endpoint({
    summary: 'Prometheus metrics (text exposition format)',
    description: 'In production only with `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise), and not there at all (404) when METRICS_TOKEN is unset.',
    tags: ['operations'],
    response: { raw: 'text/plain' },
    errors: [401],
  })
  async metricsText(@Res() reply: FastifyReply, @Headers('authorization') authorization?: string) {
    if (this.config.isProduction) this.checkMetricsToken(authorization);
    const body = await this.metrics.registry.metrics();
    void reply.header('content-type', this.metrics.registry.contentType).send(body);
  }

  /** Production: the bearer token compared in constant time (hashes of equal length, so not even the length leaks). */
  private checkMetricsToken(authorization: string | undefined): void {
    const expected = this.config.metricsToken;
    if (!expected) throw new AppError('not_found', 'Route not found');
    const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '';
    if (!safeEqual(sha256Hex(given), sha256Hex(expected))) throw AppError.unauthorized('A valid metrics token is required');
  }
}
