import { randomUUID } from 'node:crypto';
import { Injectable, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import { DbService } from '../db/db.service.js';
import { logger } from '../observability/logger.js';
import { Metrics } from '../observability/metrics.js';
import { leaderLocks, periodicTaskRuns } from './leader.tables.js';

export const LEADER_LOCK_TTL_MS = 30_000;
const LEASE_RENEW_MS = 10_000;
const TICK_MS = 1_000;
const LOCK_NAME = 'scheduler';

interface PeriodicTask {
  name: string;
  intervalMs: number;
  run: () => Promise<void>;
  running: boolean;
  /** The last period whose claim this instance saw answered (run here or elsewhere): not asked again. */
  askedPeriod?: number;
}

/**
 * Periodic work on one instance at a time: instances compete for a lease (TTL 30 s, spec 8);
 * the holder runs each task at most once per period, and the period itself is claimed in the
 * database, so a handover never runs a period twice.
 */
@Injectable()
export class SchedulerService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly instanceId = randomUUID();
  private readonly tasks: PeriodicTask[] = [];
  private leaseTimer?: NodeJS.Timeout;
  private tickTimer?: NodeJS.Timeout;
  private leaseValidUntil = 0;
  private stopped = false;
  private standingBy = false;

  constructor(
    private readonly dbService: DbService,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  every(name: string, intervalMs: number, run: () => Promise<void>): void {
    this.tasks.push({ name, intervalMs, run, running: false });
  }

  /** Before the app starts: this instance never takes the lease, so it runs no periodic work. */
  standBy(): void {
    this.standingBy = true;
  }

  get isLeader(): boolean {
    return Date.now() < this.leaseValidUntil;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.standingBy) return;
    await this.renewLease();
    this.leaseTimer = setInterval(() => void this.renewLease(), LEASE_RENEW_MS);
    this.tickTimer = setInterval(() => void this.tick(), TICK_MS);
    this.leaseTimer.unref();
    this.tickTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.leaseTimer);
    clearInterval(this.tickTimer);
    if (this.isLeader) {
      await this.dbService.root
        .delete(leaderLocks)
        .where(sql`${leaderLocks.name} = ${LOCK_NAME} and ${leaderLocks.holder} = ${this.instanceId}`)
        .catch(() => undefined);
    }
    this.leaseValidUntil = 0;
    this.metrics?.schedulerLeader.set(0);
    while (this.tasks.some((t) => t.running)) await new Promise((r) => setTimeout(r, 50));
  }

  /** Takes the lease when free or expired, renews it when ours. */
  async renewLease(): Promise<boolean> {
    if (this.stopped) return false;
    const startedAt = Date.now();
    try {
      const rows = await this.dbService.root.execute<{ holder: string }>(sql`
        insert into leader_locks (name, holder, expires_at)
        values (${LOCK_NAME}, ${this.instanceId}, now() + make_interval(secs => ${LEADER_LOCK_TTL_MS / 1000}))
        on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
        where leader_locks.holder = excluded.holder or leader_locks.expires_at < now()
        returning holder`);
      const won = rowsOf(rows).length > 0;
      // Count our lease from before the statement ran, and stop a little early: never two leaders.
      this.leaseValidUntil = won ? startedAt + LEADER_LOCK_TTL_MS - 2_000 : 0;
      this.metrics?.schedulerLeader.set(won ? 1 : 0);
      return won;
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'leader lease renewal failed');
      this.leaseValidUntil = 0;
      this.metrics?.schedulerLeader.set(0);
      return false;
    }
  }

  private async tick(): Promise<void> {
    // The gauge follows the lease as it runs out too, not only when a renewal answers.
    this.metrics?.schedulerLeader.set(this.isLeader && !this.stopped ? 1 : 0);
    if (!this.isLeader || this.stopped) return;
    const now = Date.now();
    for (const task of this.tasks) {
      const period = Math.floor(now / task.intervalMs);
      // Once per period: the database answered for it already (a failed claim is asked again next tick).
      if (task.running || task.askedPeriod === period) continue;
      task.running = true;
      void this.runOnce(task, period, () => (task.askedPeriod = period)).finally(() => (task.running = false));
    }
  }

  /**
   * Claims the period in the database, then runs the task; false when the period was already run.
   * `answered`: called once the claim has its answer (claimed or not), before the task runs.
   */
  async runOnce(task: Pick<PeriodicTask, 'name' | 'run'>, period: number, answered?: () => void): Promise<boolean> {
    let claimed = false;
    try {
      const rows = await this.dbService.root.execute(sql`
        insert into ${periodicTaskRuns} (name, period, ran_at) values (${task.name}, ${period}, now())
        on conflict (name) do update set period = excluded.period, ran_at = excluded.ran_at
        where ${periodicTaskRuns.period} < excluded.period
        returning name`);
      claimed = rowsOf(rows).length > 0;
      answered?.();
      if (!claimed) return false;
      await task.run();
      this.metrics?.periodicTaskRuns.inc({ task: task.name, outcome: 'ok' });
      return true;
    } catch (err) {
      logger.error({ err, task: task.name }, 'periodic task failed');
      if (claimed) this.metrics?.periodicTaskRuns.inc({ task: task.name, outcome: 'failed' });
      return false;
    }
  }
}

function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : ((result as { rows?: T[] }).rows ?? [])) as T[];
}
