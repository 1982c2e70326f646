import { randomUUID } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { DbService } from '../db/db.service.js';
import { logger } from '../observability/logger.js';
import { QueueService } from '../queue/queue.service.js';
import type { DomainEventHandler, DomainEventName, DomainEvents, DurableDomainEvents, DurableEventHandler, DurableEventName, DurableHandlerOptions } from './domain-events.js';
import './events.jobs.js';
import { handlerMarksOf } from './on-event.decorator.js';

interface DurableJob {
  event: DurableEventName;
  handler: string;
  eventId: string;
  payload: unknown;
}

interface DurableHandler {
  run: DurableEventHandler<DurableEventName>;
  options: DurableHandlerOptions;
}

/** How a durable event's job is retried: a failed handler runs again, alone, with the same event id. */
const DURABLE_DELIVERY = { retryLimit: 5, retryDelaySeconds: 5, retryBackoff: true, pollingIntervalSeconds: 0.5 };

/**
 * How long a durable event's job is its writer's alone: the queue's workers fetch it only after this,
 * so the delivery made at once after the commit is not raced by a worker polling meanwhile (the
 * caller's answer comes after the handlers ran). A writer that dies first leaves it to the workers.
 */
const WRITER_LEASE_SECONDS = 5;

/**
 * The one bus of cross-module effects. A module emits its own events (`emit`, `emitDurable`) and
 * never calls the modules that follow them; the listening module marks its handlers with @OnEvent /
 * @OnDurableEvent (found at init among every provider) or registers them with `on` / `onDurable`.
 * - `emit`: delivered in process after the surrounding transaction commits (at once outside one);
 *   a rolled-back transaction delivers nothing. A handler's failure is logged, never thrown back.
 * - `emitDurable`: one job per handler written in the surrounding transaction (the job queue is the
 *   outbox), so a crash after the commit loses nothing: the worker delivers it at least once.
 */
@Injectable()
export class EventBus implements OnModuleInit {
  private readonly handlers = new Map<string, Array<DomainEventHandler<DomainEventName>>>();
  private readonly durable = new Map<string, Map<string, DurableHandler>>();

  constructor(
    private readonly dbService: DbService,
    private readonly queue: QueueService,
    private readonly discovery: DiscoveryService,
  ) {}

  onModuleInit(): void {
    const seen = new Set<object>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string | symbol, unknown> | undefined;
      if (!instance || typeof instance !== 'object' || seen.has(instance) || !wrapper.isDependencyTreeStatic()) continue;
      seen.add(instance);
      for (const { method, event, durable } of handlerMarksOf(instance.constructor)) {
        const fn = (instance[method] as (...args: unknown[]) => unknown).bind(instance);
        if (durable) this.onDurable(event as DurableEventName, `${instance.constructor.name}.${String(method)}`, fn as DurableEventHandler<DurableEventName>, durable);
        else this.on(event as DomainEventName, fn);
      }
    }
    this.queue.handle('events.durable', (job, meta) => this.deliver(job, meta), DURABLE_DELIVERY);
  }

  on<K extends DomainEventName>(event: K, handler: DomainEventHandler<K>): void {
    const list = this.handlers.get(event as string) ?? [];
    list.push(handler as DomainEventHandler<DomainEventName>);
    this.handlers.set(event as string, list);
  }

  /** `id` names the handler in its queued jobs: stable across releases. */
  onDurable<K extends DurableEventName>(event: K, id: string, handler: DurableEventHandler<K>, options: DurableHandlerOptions = {}): void {
    const byId = this.durable.get(event as string) ?? new Map<string, DurableHandler>();
    if (byId.has(id)) throw new Error(`durable handler ${id} of ${String(event)} registered twice`);
    byId.set(id, { run: handler as DurableEventHandler<DurableEventName>, options });
    this.durable.set(event as string, byId);
  }

  /**
   * In a transaction: delivered once it commits (the transaction's caller gets its answer after the
   * handlers ran), dropped if it rolls back. Outside one: delivered now, resolving once handled.
   */
  async emit<K extends DomainEventName>(event: K, payload: DomainEvents[K]): Promise<void> {
    const handlers = [...(this.handlers.get(event as string) ?? [])];
    if (handlers.length === 0) return;
    const deliver = async () => {
      for (const handler of handlers) {
        try {
          await handler(payload);
        } catch (err) {
          logger.error({ err, event }, 'domain event handler failed');
        }
      }
    };
    if (this.dbService.inTransaction) this.dbService.afterCommit(deliver);
    else await deliver();
  }

  /**
   * Written in the surrounding transaction (with the change that causes it); returns the event's id.
   * Once the transaction commits, this process delivers it at once, as `emit` would (the caller gets
   * its answer after the handlers ran); the job queue is the path of every retry: a delivery that
   * fails, or dies with the process, is the queue's to make again (a job the process never got to
   * runs once its writer's lease, `WRITER_LEASE_SECONDS`, is over).
   */
  async emitDurable<K extends DurableEventName>(event: K, payload: DurableDomainEvents[K]): Promise<string> {
    const eventId = randomUUID();
    const jobs: Array<{ id: string; job: DurableJob }> = [];
    for (const handler of this.durable.get(event as string)?.keys() ?? []) {
      const job: DurableJob = { event, handler, eventId, payload };
      const id = await this.queue.sendInTransaction('events.durable', job, { startAfterSeconds: WRITER_LEASE_SECONDS });
      if (id) jobs.push({ id, job });
    }
    if (jobs.length === 0) return eventId;
    if (this.dbService.inTransaction) this.dbService.afterCommit(() => this.deliverNow(jobs));
    else await this.deliverNow(jobs);
    return eventId;
  }

  /** Runs the jobs a commit just wrote, each unless a worker took it first (its writer's lease ran out). */
  private async deliverNow(jobs: Array<{ id: string; job: DurableJob }>): Promise<void> {
    for (const { id, job } of jobs) {
      const atomic = this.durable.get(job.event as string)?.get(job.handler)?.options.atomic === true;
      try {
        if (atomic) {
          // Claim, writes and completion commit together; a failure leaves the job as it was written.
          await this.dbService.transaction(async () => {
            if (await this.queue.claim('events.durable', id)) await this.deliver(job, { id, retryCount: 0 });
          });
        } else if (await this.queue.claim('events.durable', id)) {
          try {
            await this.deliver(job, { id, retryCount: 0 });
          } catch (err) {
            await this.queue.fail('events.durable', id, err);
            throw err;
          }
          await this.queue.complete('events.durable', id);
        }
      } catch (err) {
        logger.warn({ err, event: job.event, handler: job.handler, eventId: job.eventId }, 'durable event not delivered at once; the job queue retries it');
      }
    }
  }

  private async deliver(job: DurableJob, meta: { id: string; retryCount: number }): Promise<void> {
    const handler = this.durable.get(job.event as string)?.get(job.handler);
    if (!handler) {
      logger.error({ event: job.event, handler: job.handler, eventId: job.eventId }, 'durable event for a handler that no longer exists');
      return;
    }
    const payload = job.payload as DurableDomainEvents[DurableEventName];
    const delivery = { eventId: job.eventId, retryCount: meta.retryCount };
    if (!handler.options.atomic) {
      await handler.run(payload, delivery);
      return;
    }
    await this.dbService.transaction(async () => {
      await handler.run(payload, delivery);
      // The job's completion commits with the handler's writes: a crash before the commit leaves
      // neither, and the retry starts from nothing.
      if (!(await this.queue.completeInTransaction('events.durable', meta.id))) throw new Error('the event job is no longer this worker’s');
    });
  }
}
