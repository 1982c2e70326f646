import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
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

  async onApplicationBootstrap(): Promise<void> {
    const handle = this.dbService.handle;
    const options: PgBoss.ConstructorOptions =
      handle.kind === 'pglite'
        ? { db: { executeSql: (text, values) => handle.executeSql(text, values) }, schema: 'pgboss' }
        : { connectionString: this.config.databaseUrl, max: 4, schema: 'pgboss', application_name: 'cos-queue' };
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
      await boss.work(
        reg.name as string,
        { batchSize: reg.options.batchSize ?? 1, pollingIntervalSeconds: reg.options.pollingIntervalSeconds ?? 1, includeMetadata: true },
        async (jobs) => {
          const run = (job: (typeof jobs)[number]) => reg.handler(job.data as JobMap[JobName], { id: job.id, retryCount: job.retryCount, final: job.retryCount >= job.retryLimit });
          if (!reg.options.parallel) {
            for (const job of jobs) await run(job);
            return;
          }
          const failed = (await Promise.allSettled(jobs.map(run))).find((r): r is PromiseRejectedResult => r.status === 'rejected');
          if (failed) throw failed.reason;
        },
      );
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
