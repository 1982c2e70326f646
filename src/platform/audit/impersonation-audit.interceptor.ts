import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { catchError, concatMap, from, mergeMap, throwError, type Observable } from 'rxjs';
import { toErrorResponse } from '../errors/to-error-response.js';
import { AuditService } from './audit.service.js';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const HTTP_CODE_METADATA = '__httpCode__';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The one place that audits what a SuperAdmin does while impersonating (spec 5.8): every
 * mutating request made with an impersonation token that reaches its handler leaves an
 * `impersonation.action` row with both ids (the user acted as, and the impersonator), the
 * route and its outcome, whether or not the domain audits the action itself.
 */
@Injectable()
export class ImpersonationAuditInterceptor implements NestInterceptor {
  constructor(private readonly audit: AuditService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const principal = request.principal;
    if (!principal?.impersonatorId || !MUTATING.has(request.method)) return next.handle();

    const params = (request.params ?? {}) as Record<string, string | undefined>;
    let recorded = false;
    const record = async (statusCode: number): Promise<void> => {
      // A streaming handler emits many values: one row per request.
      if (recorded) return;
      recorded = true;
      await this.audit.record({
        action: 'impersonation.action',
        userId: principal.userId,
        impersonatorId: principal.impersonatorId,
        resourceId: principal.impersonationId ?? null,
        orgId: params.orgId && UUID.test(params.orgId) ? params.orgId : null,
        meta: {
          impersonationId: principal.impersonationId,
          method: request.method,
          route: request.routeOptions?.url ?? null,
          path: request.url.split('?')[0],
          statusCode,
        },
      });
    };
    const successStatus = (Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler()) as number | undefined) ?? (request.method === 'POST' ? 201 : 200);
    // The row is written before the answer leaves, so whoever sees the answer can find the row.
    return next.handle().pipe(
      concatMap(async (value: unknown) => {
        await record(successStatus);
        return value;
      }),
      catchError((err: unknown) => from(record(toErrorResponse(err, request.id).status)).pipe(mergeMap(() => throwError(() => err)))),
    );
  }
}
