import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { AppModule } from './app.module.js';
import type { AppConfig } from './platform/config/config.js';
import { makePrivate, restrictNewFiles } from './platform/config/data-dir.js';
import { openDatabase, type EmbeddedOptions } from './platform/db/database.js';
import { DbService } from './platform/db/db.service.js';
import { runMigrations } from './platform/db/migrate.js';
import { answerClientError } from './platform/errors/client-error.js';
import { sendError } from './platform/errors/http-exception.filter.js';
import { InflightTracker } from './platform/http/inflight.interceptor.js';
import { depthLimitedJsonParser } from './platform/http/json-body.js';
import { JsonTextAdapter } from './platform/http/json-text.js';
import { acceptMultipartBodies } from './platform/http/multipart.js';
import { frontDoor } from './platform/http/front-door.js';
import { Probes } from './platform/http/probe.js';
import { securityHeaders, writeHeaders } from './platform/http/security-headers.js';
import { mountWebApp } from './platform/http/web-app.js';
import { RealtimeService } from './platform/realtime/realtime.service.js';
import { configureLogger, logger, PinoNestLogger } from './platform/observability/logger.js';
import { Metrics } from './platform/observability/metrics.js';
import { closeRedis, createRedis, waitForRedis } from './platform/redis/redis.js';
import { DemoService } from './modules/demo/index.js';
import { SchedulerService } from './platform/queue/scheduler.service.js';

export interface CreateAppOptions {
  embedded?: EmbeddedOptions;
  /** Seed demo data (default: config.seedDemoData). */
  seed?: boolean;
  /**
   * Compete for the scheduler's lease and run periodic work (default true). A test that runs each
   * sweep itself on a Clock it moves starts with false: a period turning with the machine's time
   * would otherwise run a sweep between two of its steps.
   */
  periodic?: boolean;
}

export interface RunningApp {
  app: NestFastifyApplication;
  config: AppConfig;
  dbService: DbService;
  /** Stops the app, its workers, and closes the database and Redis. */
  close(): Promise<void>;
}

const BODY_LIMIT = 1024 * 1024;
const OPS_PATHS = new Set(['/health', '/ready', '/metrics']);
/** Request ids: unique per instance and process (cheaper than a UUID per request). */
const INSTANCE_ID = randomUUID().slice(0, 8);
let requestCounter = 0;
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** A request URL without its query. */
const pathOf = (url: string) => {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
};

/** The operational endpoints answer at the root as well as under /api. */
const routeUrl = (url: string) => (url.startsWith('/api/') || !OPS_PATHS.has(pathOf(url)) ? url : `/api${url}`);

/** The API's answers, the operations endpoints (also at the root) and Socket.IO: never a page. */
const isApiUrl = (url = '/') => url.startsWith('/api/') || url.startsWith('/socket.io/') || OPS_PATHS.has(pathOf(url));

/** Builds the whole service from a config: database migrated, Nest app initialised, web app mounted. */
export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<RunningApp> {
  restrictNewFiles();
  configureLogger(config.logLevel);
  const repaired = makePrivate(config.dataDir);
  if (repaired.length > 0) {
    logger.warn(
      { dataDir: config.dataDir, repaired: repaired.length, paths: repaired.slice(0, 20) },
      `DATA_DIR was open to other users of this host: made ${repaired.length} path(s) private (directories 0700, files 0600)`,
    );
  }
  const handle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, embedded: options.embedded });
  const dbService = new DbService(handle);
  let redis: Redis | undefined;
  try {
    await runMigrations(handle);
    dbService.migrated = true;
    if (config.redisUrl) {
      redis = createRedis(config.redisUrl, 'rate-limit');
      if (!(await waitForRedis(redis))) logger.warn('redis not reachable at start: limits run in memory until it is');
    } else {
      logger.warn('REDIS_URL is not set: rate limits and real-time delivery are in memory (single instance only)');
    }
    if (config.isProduction && !config.smtpUrl) {
      logger.error('SMTP_URL is not set in production: no mail is sent (sign-in codes, password resets, invitations never reach anyone); set SMTP_URL');
    }

    const adapter = new JsonTextAdapter({
      trustProxy: config.trustProxy,
      bodyLimit: BODY_LIMIT,
      requestIdHeader: false,
      genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
        const given = req.headers['x-request-id'];
        return typeof given === 'string' && REQUEST_ID.test(given) ? given : `${INSTANCE_ID}-${(++requestCounter).toString(36)}`;
      },
      // A URL fastify cannot route (malformed percent-encoding, an over-long parameter) answers in our error body too.
      frameworkErrors: (err: Error, req: FastifyRequest, reply: FastifyReply) => sendError(req, reply, err),
      clientErrorHandler: answerClientError,
      rewriteUrl: (req: { url?: string }) => routeUrl(req.url ?? '/'),
    });
    const metrics = new Metrics();
    const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot({ config, dbService, metrics, redis }), adapter, {
      logger: new PinoNestLogger(),
      abortOnError: false,
      // Webhook signatures are computed over the exact bytes received (JSON and form bodies).
      rawBody: true,
    });
    app.setGlobalPrefix('api');
    const fastify = app.getHttpAdapter().getInstance();
    app.useBodyParser('application/json', { bodyLimit: BODY_LIMIT }, depthLimitedJsonParser(fastify));
    // A multipart body stays unread unless its route reads it, with limits of its own (readForm): a mail gateway posts whole messages.
    acceptMultipartBodies(fastify);
    metrics.install(fastify);
    const headers = await securityHeaders(config.publicUrl);
    const probes = new Probes({ checkResponses: config.env === 'test', routeUrl, headers: headers.probe, observe: (...answer) => metrics.observeRequest(...answer) });
    probes.install(app);
    await mountWebApp(app);
    if (options.periodic === false) app.get(SchedulerService).standBy();
    await app.init();
    frontDoor(app.getHttpServer() as Server, (req, res) => {
      if (probes.answer(req, res)) return true;
      // Every other answer, Socket.IO's included (it answers its own requests), has the security headers before any handler runs.
      writeHeaders(res, isApiUrl(req.url) ? headers.api : headers.document);
      return false;
    });

    if (options.seed ?? config.seedDemoData) await app.get(DemoService).seedIfEmpty();

    let closed = false;
    return {
      app,
      config,
      dbService,
      async close() {
        if (closed) return;
        closed = true;
        probes.stop();
        const inflight = app.get(InflightTracker);
        // A keep-alive connection whose request finishes during the stop would hold the server
        // open until its keep-alive timeout (72 s): close connections as soon as they are idle.
        const server = app.getHttpServer() as { closeIdleConnections?: () => void };
        const closeIdle = setInterval(() => server.closeIdleConnections?.(), 100);
        // Stops accepting, runs the shutdown hooks (job queue waits for its jobs), then lets
        // handlers whose clients left finish before the database goes away.
        try {
          await app.close();
        } finally {
          clearInterval(closeIdle);
        }
        await inflight.drain(15_000);
        await Promise.all([app.get(RealtimeService).disconnectRedis(), closeRedis(redis)]);
        await handle.close();
      },
    };
  } catch (err) {
    redis?.disconnect();
    await handle.close().catch(() => undefined);
    throw err;
  }
}
