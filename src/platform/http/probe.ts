import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { SetMetadata, type Type } from '@nestjs/common';
import { RouteConfig, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { RouteOptions } from 'fastify';
import { Public } from '../auth/auth.decorators.js';
import { toErrorResponse } from '../errors/to-error-response.js';
import { logger } from '../observability/logger.js';
import { endpointOf, type EndpointSpec } from './endpoint.js';
import { ResponseMismatchError, responseMismatch } from './response-check.interceptor.js';
import type { HeaderList } from './security-headers.js';

const PROBE = 'probe';
const IS_PROBE = 'http:probe';

/** Where a probe's handler lives, kept in its fastify route config. */
interface ProbeRef {
  controller: Type;
  method: string;
}

/** How a probe sets a status other than 200 (`reply.status(503)`). */
export interface ProbeReply {
  status(statusCode: number): unknown;
}

/** What a probe answered: a status and a JSON body. */
interface ProbeAnswer {
  statusCode: number;
  body: unknown;
}

/**
 * An operational probe (liveness, readiness): a load balancer calls it all day, so it is answered
 * at the server's door (`Probes.answer`), before fastify, Nest and their hooks: no guard (no token
 * read, no throttle, no Redis round trip), no interceptors, no request id. What every answer gets
 * still applies: the security headers and the request metrics. The handler is called with a
 * `ProbeReply` (to set a status) and returns its body; it needs no token (`@Public()` for the route catalog and the
 * documentation).
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

type ProbeHandler = (reply: ProbeReply) => unknown;

interface ServedProbe {
  /** The route pattern, as the request metrics name it (`/api/health`). */
  route: string;
  name: string;
  run: () => Promise<ProbeAnswer>;
}

export interface ProbesOptions {
  /** Test runs: each answer is checked against the route's `@Endpoint` response, as `ResponseSchemaCheck` does for the others. */
  checkResponses: boolean;
  /** The route a request URL reaches (the operational endpoints also answer at the root). */
  routeUrl: (url: string) => string;
  /** The security headers of a probe's answer. */
  headers: HeaderList;
  /** Records an answer in the request metrics. */
  observe: (method: string, route: string, statusCode: number, seconds: number) => void;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The `@Probe()` routes, answered at the HTTP server's door. Nest still registers each route with
 * fastify (the route catalog, the OpenAPI document, `inject`), and that route runs the same handler;
 * over HTTP a `GET` or `HEAD` of a probe's path (with or without a query, at the root or under
 * `/api`) never reaches fastify: `answer` takes it from the server's request listener.
 */
export class Probes {
  private readonly byRoute = new Map<string, ServedProbe>();
  /** The security headers as `writeHead` takes them (name, value, name, value...). */
  private readonly headers: string[];
  private closing = false;

  constructor(private readonly options: ProbesOptions) {
    this.headers = options.headers.flat();
  }

  /**
   * The app is stopping: probes go to fastify's routes again, which answer what every route
   * answers then (503 on a connection still open), so a load balancer sees the instance leave.
   */
  stop(): void {
    this.closing = true;
  }

  /** Finds every `@Probe()` route as Nest registers it. Call before `app.init()`. */
  install(app: NestFastifyApplication): void {
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onRoute', (route: RouteOptions) => {
        const ref = (route.config as Record<string, ProbeRef | undefined> | undefined)?.[PROBE];
        if (!ref) return;
        const instance = app.get<object>(ref.controller, { strict: false }) as Record<string, ProbeHandler>;
        const method = instance[ref.method]!;
        const name = `${String(route.method)} ${route.url}`;
        const spec = endpointOf(method);
        if (!spec) throw new Error(`${name} is a @Probe() without an @Endpoint`);
        const probe: ServedProbe = { route: route.url, name, run: this.checked(name, spec, method.bind(instance)) };
        // Fastify adds a HEAD route beside each GET one: the door answers both by the GET's name.
        if (!this.byRoute.has(route.url)) this.byRoute.set(route.url, probe);
        route.handler = async (_request, reply) => {
          const answer = await this.settle(probe);
          return reply.code(answer.statusCode).type(JSON_TYPE).send(answer.body);
        };
      });
  }

  /**
   * Answers the request if it is a `GET` or `HEAD` of a probe (true), else leaves it alone (false).
   * The answer carries the probes' security headers and is recorded in the request metrics.
   */
  answer(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.closing || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    const url = this.options.routeUrl(req.url ?? '/');
    const query = url.indexOf('?');
    const probe = this.byRoute.get(query === -1 ? url : url.slice(0, query));
    if (!probe) return false;
    const started = performance.now();
    void this.settle(probe).then(({ statusCode, body }) => {
      const payload = JSON.stringify(body);
      res.writeHead(statusCode, [...this.headers, 'content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(payload))]);
      res.end(req.method === 'HEAD' ? undefined : payload);
      this.options.observe(req.method!, probe.route, statusCode, (performance.now() - started) / 1000);
    });
    return true;
  }

  /** The handler as a function of no argument giving its status and body (checked against its `@Endpoint` in test runs). */
  private checked(name: string, spec: EndpointSpec, handler: ProbeHandler): () => Promise<ProbeAnswer> {
    return async () => {
      const answer: ProbeAnswer = { statusCode: 200, body: undefined };
      answer.body = await handler({ status: (statusCode) => (answer.statusCode = statusCode) });
      const problem = this.options.checkResponses ? responseMismatch(spec, answer.body) : undefined;
      if (problem) throw new ResponseMismatchError(`${name} answered outside its @Endpoint response: ${problem}`);
      return answer;
    };
  }

  /** The probe's answer, or the error body of what it threw (logged as any unexpected error is). */
  private async settle(probe: ServedProbe): Promise<ProbeAnswer> {
    try {
      return await probe.run();
    } catch (err) {
      const id = randomUUID();
      const res = toErrorResponse(err, id);
      if (res.unexpected) logger.error({ err, reqId: id, route: probe.route }, 'unhandled error');
      return { statusCode: res.status, body: res.body };
    }
  }
}
