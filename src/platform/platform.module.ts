import { Global, Module, type DynamicModule, type Provider } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import { AuditService } from './audit/audit.service.js';
import { ImpersonationAuditInterceptor } from './audit/impersonation-audit.interceptor.js';
import { Clock } from './clock/clock.js';
import { AccessEvents } from './auth/access-events.js';
import { EventBus } from './events/event-bus.js';
import { Ports } from './ports/ports.js';
import { OrgAccessGate } from './auth/org-access-gate.js';
import { RequestAuthenticator } from './auth/request-auth.js';
import { TokenService } from './auth/token.service.js';
import { RequestGuard } from './http/request.guard.js';
import { InflightTracker } from './http/inflight.interceptor.js';
import { ResponseSchemaCheck } from './http/response-check.interceptor.js';
import { RealtimeService } from './realtime/realtime.service.js';
import { APP_CONFIG } from './config/config.token.js';
import type { AppConfig } from './config/config.js';
import { SecretBox } from './crypto/crypto.js';
import { KeyedHash } from './crypto/keyed-hash.js';
import { DbService } from './db/db.service.js';
import { AllExceptionsFilter } from './errors/http-exception.filter.js';
import { DocsController } from './http/docs.controller.js';
import { RouteCatalog } from './http/openapi.service.js';
import { DevMailController } from './mail/dev-mail.controller.js';
import { MailService } from './mail/mail.service.js';
import { HealthController } from './observability/health.controller.js';
import { Metrics } from './observability/metrics.js';
import { QueueService } from './queue/queue.service.js';
import { SchedulerService } from './queue/scheduler.service.js';
import { RateLimitService } from './rate-limit/rate-limit.service.js';
import { REDIS_CLIENT } from './redis/redis.js';
import { SharedCaches } from './cache/shared-cache.js';
import type { Redis } from 'ioredis';

export interface PlatformDeps {
  config: AppConfig;
  dbService: DbService;
  metrics: Metrics;
  /** Redis for shared rate limits and real time, when REDIS_URL is set. */
  redis?: Redis;
}

/** The platform services every module may use. Holds no domain logic. */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(deps: PlatformDeps): DynamicModule {
    const providers: Provider[] = [
      { provide: APP_CONFIG, useValue: deps.config },
      { provide: DbService, useValue: deps.dbService },
      { provide: Metrics, useValue: deps.metrics },
      { provide: SecretBox, useValue: new SecretBox(deps.config.keys.encryptionKey, deps.config.keys.previousEncryptionKeys) },
      { provide: KeyedHash, useValue: new KeyedHash(deps.config.keys.encryptionKey, deps.config.keys.previousEncryptionKeys) },
      ...(deps.redis ? [{ provide: REDIS_CLIENT, useValue: deps.redis }] : []),
      TokenService,
      Clock,
      RateLimitService,
      QueueService,
      SchedulerService,
      MailService,
      AuditService,
      RouteCatalog,
      Ports,
      EventBus,
      RequestAuthenticator,
      AccessEvents,
      OrgAccessGate,
      RealtimeService,
      SharedCaches,
      InflightTracker,
      { provide: APP_INTERCEPTOR, useExisting: InflightTracker },
      { provide: APP_INTERCEPTOR, useClass: ImpersonationAuditInterceptor },
      // Tests see an answer that leaves its documented schema as a 500 (production does not pay for the check).
      ...(deps.config.env === 'test' ? [{ provide: APP_INTERCEPTOR, useClass: ResponseSchemaCheck }] : []),
      { provide: APP_FILTER, useClass: AllExceptionsFilter },
      { provide: APP_GUARD, useClass: RequestGuard },
    ];
    return {
      module: PlatformModule,
      imports: [DiscoveryModule],
      controllers: [HealthController, DocsController, ...(deps.config.isProduction ? [] : [DevMailController])],
      providers,
      exports: providers.filter((p) => !(typeof p === 'object' && 'provide' in p && (p.provide === APP_FILTER || p.provide === APP_GUARD || p.provide === APP_INTERCEPTOR))),
    };
  }
}
