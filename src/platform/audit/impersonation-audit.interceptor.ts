import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor, type OnModuleInit } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { catchError, concatMap, from, mergeMap, throwError, type Observable } from 'rxjs';
import { toErrorResponse } from '../errors/to-error-response.js';
import { AuditService } from './audit.service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set once the request's `impersonation.action` row is written: one row per request. */
    impersonationAudited?: boolean;
  }
}

/**
 * The one place that audits what a SuperAdmin does while impersonating (spec 5.8; API-MAP
 * "Sessions, sockets and hardening"): every request made with an impersonation token, reads
 * included, leaves an `impersonation.action` row with both ids (the user acted as, and the
 * impersonator), the method, the route, the target and the outcome, whether or not the domain
 * audits the action itself. A request that reaches its handler is recorded here, before the answer
 * leaves (a streamed answer too); one refused before it (a role, an org, the throttle) is recorded
 * by the same code from a hook as its error answer goes out.
 */
@Injectable()
export class ImpersonationAuditInterceptor implements NestInterceptor, OnModuleInit {
  constructor(
    private readonly audit: AuditService,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    // Not async: every answer passes here, and all but the impersonated ones leave at once.
    fastify.addHook('onSend', (request, reply, payload, done) => {
      if (!request.principal?.impersonatorId || request.impersonationAudited) return done(null, payload);
      this.record(request, reply.statusCode).then(() => done(null, payload), done);
    });
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!request.principal?.impersonatorId) return next.handle();

    const successStatus = (Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler()) as number | undefined) ?? (request.method === 'POST' ? 201 : 200);
    // The row is written before the answer leaves, so whoever sees the answer can find the row.
    return next.handle().pipe(
      concatMap(async (value: unknown) => {
        await this.record(request, successStatus);
        return value;
      }),
      catchError((err: unknown) => from(this.record(request, toErrorResponse(err, request.id).status)).pipe(mergeMap(() => throwError(() => err)))),
    );
  }

  private async record(request: FastifyRequest, statusCode: number): Promise<void> {
    const principal = request.principal;
    // A streaming handler emits many values, and the hook sees every answer: one row per request.
    if (!principal?.impersonatorId || request.impersonationAudited) return;
    request.impersonationAudited = true;
    const params = (request.params ?? {}) as Record<string, string | undefined>;
    const target = params.id ?? params.userId ?? params.orgId ?? null;
    await this.audit.recordImpersonatedAction(principal, {
      method: request.method,
      route: request.routeOptions?.url ?? null,
      // A path with a token in it (an invitation) is kept as its route only.
      path: params.token === undefined ? (request.url.split('?')[0] ?? null) : null,
      target,
      statusCode,
      orgId: params.orgId && UUID.test(params.orgId) ? params.orgId : null,
    });
  }
}
