import { SetMetadata, type Type } from '@nestjs/common';
import { RouteConfig, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Public } from '../auth/auth.decorators.js';
import { sendError } from '../errors/http-exception.filter.js';
import { endpointOf } from './endpoint.js';
import { ResponseMismatchError, responseMismatch } from './response-check.interceptor.js';

const PROBE = 'probe';
const IS_PROBE = 'http:probe';

/** Where a probe's handler lives, kept in its fastify route config. */
interface ProbeRef {
  controller: Type;
  method: string;
}

/**
 * An operational probe (liveness, readiness): a load balancer calls it all day, so fastify answers
 * it itself, before Nest's pipeline: no guard (no token read, no throttle, no Redis round trip), no
 * interceptors, no request id. What every answer gets still applies: the security headers (written
 * before fastify runs) and the request metrics (a fastify hook). The handler is called with
 * fastify's `(request, reply)` and returns its body; it needs no token (`@Public()` for the route
 * catalog and the documentation).
 */
export function Probe(): MethodDecorator {
  return (target, key, descriptor) => {
    Public()(target, key, descriptor);
    SetMetadata(IS_PROBE, true)(target, key, descriptor);
    const ref: ProbeRef = { controller: target.constructor as Type, method: String(key) };
    RouteConfig({ [PROBE]: ref })(target, key, descriptor);
  };
}

/** Whether a handler is a `@Probe()` (answered before the pipeline: never throttled). */
export const isProbe = (handler: object): boolean => Reflect.getMetadata(IS_PROBE, handler) === true;

type ProbeHandler = (request: FastifyRequest, reply: FastifyReply) => unknown;

/**
 * Serves every `@Probe()` route with its handler itself, in place of Nest's route handler. Call
 * before `app.init()` (Nest registers the routes there). `checkResponses` (test runs) checks each
 * answer against the route's `@Endpoint` response as `ResponseSchemaCheck` does for the others.
 */
export function serveProbes(app: NestFastifyApplication, options: { checkResponses: boolean }): void {
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRoute', (route: RouteOptions) => {
      const ref = (route.config as Record<string, ProbeRef | undefined> | undefined)?.[PROBE];
      if (!ref) return;
      const instance = app.get<object>(ref.controller, { strict: false }) as Record<string, ProbeHandler>;
      const method = instance[ref.method]!;
      const spec = endpointOf(method);
      const name = `${String(route.method)} ${route.url}`;
      if (!spec) throw new Error(`${name} is a @Probe() without an @Endpoint`);
      const handler = method.bind(instance);
      route.handler = async (request, reply) => {
        try {
          const body = await handler(request, reply);
          const problem = options.checkResponses ? responseMismatch(spec, body) : undefined;
          if (problem) throw new ResponseMismatchError(`${name} answered outside its @Endpoint response: ${problem}`);
          return body;
        } catch (err) {
          sendError(request, reply, err);
          return reply;
        }
      };
    });
}
