import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one app instance: process metrics and an HTTP duration histogram. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  /** Periods of a periodic task this instance ran (it ran them as the leader). */
  readonly periodicTaskRuns: Counter<'task' | 'outcome'>;
  /** 1 while this instance holds the scheduler lease. */
  readonly schedulerLeader: Gauge;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration up to the answer being sent, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.periodicTaskRuns = new Counter({
      name: 'periodic_task_runs_total',
      help: 'Periods of each periodic task run by this instance, by outcome (ok or failed)',
      labelNames: ['task', 'outcome'],
      registers: [this.registry],
    });
    this.schedulerLeader = new Gauge({ name: 'scheduler_leader', help: '1 while this instance holds the scheduler lease (runs the periodic tasks), else 0', registers: [this.registry] });
  }

  /**
   * Times every request by its route pattern (never the raw URL, which would explode the label set),
   * up to its answer being sent (a streamed body's transfer is not counted). Measured when the answer
   * is sent (`onSend`) rather than when it has gone (`onResponse`): an `onResponse` hook makes fastify
   * listen for the end of every response, a cost on every request.
   */
  install(fastify: FastifyInstance): void {
    fastify.addHook('onSend', (request, reply, payload, done) => {
      this.observeRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
      done(null, payload);
    });
  }

  /** One answered request in the duration histogram (`route` is the route pattern). */
  observeRequest(method: string, route: string, statusCode: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status_code: String(statusCode) }, seconds);
  }
}
