import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { logger } from '../observability/logger.js';
import { toErrorResponse } from './to-error-response.js';

/** The global filter: every error leaves as the API-MAP.md body with the request id header. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    sendError(request, reply, exception);
  }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, exception: unknown): void {
  const res = toErrorResponse(exception, request.id);
  if (res.unexpected) {
    // The route and its parameters, not the raw URL: a parameter named token is redacted like any other secret.
    logger.error({ err: exception, reqId: request.id, method: request.method, route: request.routeOptions?.url, params: request.params }, 'unhandled error');
  }
  if (reply.sent) return;
  reply.header('x-request-id', request.id);
  for (const [name, value] of Object.entries(res.headers)) reply.header(name, value);
  void reply.status(res.status).type('application/json; charset=utf-8').send(res.body);
}
