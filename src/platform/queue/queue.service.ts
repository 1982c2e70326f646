import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { sql, type SQL } from 'drizzle-orm';
import PgBoss from 'pg-boss';
import { APP_CONFIG } from '../config/config.token.js';
import type { AppConfig } from '../config/config.js';
import { withAdvisoryLock } from '../db/advisory-lock.js';
import { DbService } from '../db/db.service.js';
import { logger } from '../observability/logger.js';
import type { JobMap, JobName, JobOptions, WorkerOptions } from './jobs.js';

/** `final` is true on the last attempt pg-boss will make (no retry follows a failure). */
/** pg_advisory_lock key: pg-boss creates a queue's table without a lock, so instances starting together take turns. */
const QUEUE_SETUP_LOCK = 7_410_224;

type Handler<K extends JobName> = (data: JobMap[K], job: { id: string; retryCount: number; final: boolean }) => Promise<void>;

interface Registration {
  name: JobName;
  handler: Handler<JobName>;
  options: WorkerOptions;
}

/**
 * pg-boss on the service's own database (PGlite through `executeSql`, PostgreSQL through a small
 * pool of its own). Workers are declared by modules at init and start with the app; shutdown
 * waits for jobs in flight.
 */
@Injectable()
export class QueueService implements OnApplicationBootstrap, OnApplicationShutdown {
  private boss?: PgBoss;
  private readonly registrations: Registration[] = [];
  private readonly ready: Promise<void>;
  private markReady!: () => void;
  started = false;

  constructor(
    private readonly dbService: DbService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
  }

  /** Declares a worker; call from a module's onModuleInit. */
  handle<K extends JobName>(name: K, handler: Handler<K>, options: WorkerOptions = {}): void {
    this.registrations.push({ name, handler: handler as Handler<JobName>, options });
  }

  async send<K extends JobName>(name: K, data: JobMap[K], options: JobOptions = {}): Promise<string | null> {
    await this.ready;
    return this.boss!.send(name as string, data as object, toSendOptions(options));
  }

  /**
   * Enqueues on the open transaction (a transactional outbox): the job exists if and only if the
   * transaction commits. Outside a transaction it is a plain send.
   */
  async sendInTransaction<K extends JobName>(name: K, data: JobMap[K], options: JobOptions = {}): Promise<string | null> {
    await this.ready;
    const send = toSendOptions(options);
    // pg-boss reads one start parameter three ways (an ISO time, or seconds as an interval); bound
    // here as three parameters (`positional`), each is typed on its own, so only a time reads well.
    if (send.startAfter !== undefined) send.startAfter = new Date(Date.now() + Number(send.startAfter) * 1000);
    return this.boss!.send(name as string, data as object, { ...send, ...this.onOpenTransaction() });
  }

  /**
   * A statement that queues one job of `name` for each row `rows` yields, for a caller that writes
   * its jobs with what they are for in one statement (a data-modifying CTE: the jobs exist if and
   * only if that statement's rows do, in one round trip). `rows` has two columns: `data`, the job's
   * payload as jsonb (`JobMap[name]`'s shape), and `singleton_key` (text or null). Each job gets
   * what `send` gives one with no options of its own: the queue's policy, retry, expiry and
   * retention, pg-boss's defaults where the queue has none (its insert, pg-boss 10), and its
   * unique-index rules by the queue's policy (`on conflict do nothing`); `inbound-admission.e2e`
   * checks it against `send`.
   * For a started queue (its tables exist): a queue not created yet gets no job from it.
   */
  insertJobsFrom(name: JobName, rows: SQL): SQL {
    return sql`
      insert into pgboss.job (name, data, priority, start_after, singleton_key, dead_letter, expire_in, keep_until, retry_limit, retry_delay, retry_backoff, policy)
      select q.name, j.data, 0, now(), j.singleton_key, q.dead_letter,
        coalesce(q.expire_seconds * interval '1s', interval '15 minutes'),
        now() + cast(coalesce((q.retention_minutes * 60)::text, '14 days') as interval),
        coalesce(q.retry_limit, 2),
        case when coalesce(q.retry_backoff, false) then greatest(q.retry_delay, 1) else coalesce(q.retry_delay, 0) end,
        coalesce(q.retry_backoff, false),
        q.policy
      from (${rows}) j join pgboss.queue q on q.name = ${name as string}
      on conflict do nothing`;
  }

  /**
   * Completes an active job on the open transaction, so that the job's completion commits with the
   * handler's writes or not at all. False when the job is no longer active (another worker took it).
   */
  async completeInTransaction(name: JobName, id: string): Promise<boolean> {
    await this.ready;
    // pg-boss answers how many jobs it completed, though its types say nothing.
    const complete = this.boss!.complete.bind(this.boss) as unknown as (name: string, id: string, data: null, options: object) => Promise<{ affected: number }>;
    return (await complete(name as string, id, null, this.onOpenTransaction())).affected === 1;
  }

  /**
   * Takes a job still waiting for its first delivery, as a worker's fetch would (`created` ->
   * `active`), on the open transaction when there is one; false when a worker has it already. The
   * process that wrote a job uses it to run the job at once after its commit, the queue staying the
   * path of every retry (an active job whose runner dies expires and is retried, as a worker's).
   * The writer may hold its job back from the workers with `startAfterSeconds` (a lease of its own
   * first delivery): the claim takes the job before then too.
   */
  async claim(name: JobName, id: string): Promise<boolean> {
    await this.ready;
    const claimed = await this.dbService.db.execute(sql`update pgboss.job set state = 'active', started_on = now() where name = ${name} and id = ${id}::uuid and state = 'created' returning id`);
    return rowsOf(claimed).length === 1;
  }

  /** Completes a job taken with `claim` (outside a transaction). */
  async complete(name: JobName, id: string): Promise<void> {
    await this.ready;
    await this.boss!.complete(name as string, id);
  }

  /** Fails a job taken with `claim`: pg-boss retries it by its retry policy. */
  async fail(name: JobName, id: string, err: unknown): Promise<void> {
    await this.ready;
    await this.boss!.fail(name as string, id, { message: err instanceof Error ? err.message : String(err) });
  }

  private onOpenTransaction(): { db?: PgBoss.Db } {
    if (!this.dbService.inTransaction) return {};
    const db = this.dbService.db;
    return { db: { executeSql: async (text, values) => ({ rows: rowsOf(await db.execute(positional(text, values))) }) } };
  }

  async onApplicationBootstrap(): Promise<void> {
    const handle = this.dbService.handle;
    // A connection per worker, and two for sends and maintenance: a worker still waiting for a
    // connection when the pool closes never reports stopped, and the process cannot exit.
    const poolSize = this.registrations.length + 2;
    const options: PgBoss.ConstructorOptions =
      handle.kind === 'pglite'
        ? { db: { executeSql: (text, values) => handle.executeSql(text, values) }, schema: 'pgboss' }
        : { connectionString: this.config.databaseUrl, max: poolSize, schema: 'pgboss', application_name: 'cos-queue' };
    const boss = new PgBoss({ ...options, supervise: true, schedule: false, migrate: true });
    boss.on('error', (err) => logger.error({ err }, 'job queue error'));
    await boss.start();
    this.boss = boss;
    const policies = this.registrations.map((reg) => ({
      name: reg.name as string,
      retryLimit: reg.options.retryLimit ?? 3,
      retryDelay: reg.options.retryDelaySeconds ?? 5,
      retryBackoff: reg.options.retryBackoff ?? true,
      expireInSeconds: reg.options.expireInSeconds ?? 15 * 60,
    }));
    // Created once; its retry policy follows the code and configuration of every start.
    await withAdvisoryLock(this.dbService.handle, QUEUE_SETUP_LOCK, async () => {
      for (const policy of policies) {
        await boss.createQueue(policy.name, policy);
        await boss.updateQueue(policy.name, policy);
      }
    });
    for (const reg of this.registrations) {
      const batchSize = reg.options.batchSize ?? 1;
      const worker: { id?: string } = {};
      worker.id = await boss.work(reg.name as string, { batchSize, pollingIntervalSeconds: reg.options.pollingIntervalSeconds ?? 1, includeMetadata: true }, async (jobs) => {
        // A full batch says more jobs may be waiting: the worker fetches again as soon as this one
        // is done, instead of sleeping out its polling interval (which would cap a queue at one
        // batch per interval: 16 chat events, or one durable event, per half second). A batch
        // that is not full means the queue is drained, and the worker polls at its interval.
        if (jobs.length >= batchSize && worker.id !== undefined) boss.notifyWorker(worker.id);
        const run = (job: (typeof jobs)[number]) => reg.handler(job.data as JobMap[JobName], { id: job.id, retryCount: job.retryCount, final: job.retryCount >= job.retryLimit });
        if (!reg.options.parallel) {
          for (const job of jobs) await run(job);
          return;
        }
        const failed = (await Promise.allSettled(jobs.map(run))).find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) throw failed.reason;
      });
    }
    this.started = true;
    this.markReady();
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.boss) return;
    this.started = false;
    await this.boss.stop({ graceful: true, wait: true, timeout: 20_000 });
  }
}

function toSendOptions(o: JobOptions): PgBoss.SendOptions {
  const options: PgBoss.SendOptions = {
    retryLimit: o.retryLimit,
    retryDelay: o.retryDelaySeconds,
    retryBackoff: o.retryBackoff,
    expireInSeconds: o.expireInSeconds,
    singletonKey: o.singletonKey,
    startAfter: o.startAfterSeconds,
  };
  // pg-boss validates every key present, so unset ones must be absent rather than undefined.
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as PgBoss.SendOptions;
}

/** pg-boss's `$1`-numbered SQL as a drizzle query, each number bound to its value (never spliced). */
function positional(text: string, values: unknown[] = []): SQL {
  const parts = text.split(/\$(\d+)/);
  return sql.join(
    parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql.param(values[Number(part) - 1]))),
    sql.raw(''),
  );
}

function rowsOf(result: unknown): unknown[] {
  return Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
}
