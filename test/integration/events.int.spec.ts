import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NotificationsService } from '../../src/modules/notifications/index.js';
import { UsersService } from '../../src/modules/users/index.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { EventBus } from '../../src/platform/events/event-bus.js';
import { QueueService } from '../../src/platform/queue/queue.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

declare module '../../src/platform/events/domain-events.js' {
  interface DomainEvents {
    'test.after_commit': { n: number };
  }
  interface DurableDomainEvents {
    'test.durable': { n: number };
    'test.atomic': { userId: string };
  }
}

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: any[] }).rows);

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the domain event bus', () => {
  let app: TestApp;
  let db: DbService;
  let bus: EventBus;
  const seen: Array<{ n: number; committed: boolean }> = [];
  const delivered: Array<{ n: number; eventId: string; retryCount: number }> = [];
  let failNext = new Set<number>();

  /** The outbox row of a durable event: its job, as the queue keeps it. */
  const jobsOf = async (eventId: string) =>
    rowsOf(await db.root.execute(sql`select state, data from pgboss.job where name = 'events.durable' and data->>'eventId' = ${eventId}`)) as Array<{ state: string; data: { payload: unknown } }>;

  beforeAll(async () => {
    app = await startTestApp();
    db = app.running.app.get(DbService);
    bus = app.running.app.get(EventBus);
    bus.on('test.after_commit', ({ n }) => void seen.push({ n, committed: !db.inTransaction }));
    bus.onDurable('test.durable', 'EventsTest.durable', async ({ n }, delivery) => {
      delivered.push({ n, ...delivery });
      if (failNext.delete(n)) throw new Error('the worker died while handling it');
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('delivers an event after its transaction commits, and nothing for a rolled-back one', async () => {
    await expect(
      db.transaction(async () => {
        await bus.emit('test.after_commit', { n: 1 });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(seen).toEqual([]);
    await db.transaction(async () => {
      await bus.emit('test.after_commit', { n: 2 });
      // Not yet: the transaction is still open.
      expect(seen).toEqual([]);
    });
    // Delivered before the transaction's caller gets its answer, outside the transaction.
    expect(seen).toEqual([{ n: 2, committed: true }]);
  });

  it('writes a durable event with its transaction: a rolled-back one leaves no job', async () => {
    let eventId = '';
    await expect(
      db.transaction(async () => {
        eventId = await bus.emitDurable('test.durable', { n: 10 });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await jobsOf(eventId)).toEqual([]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(delivered.filter((d) => d.n === 10)).toEqual([]);
  });

  it('keeps a durable event through a crash between the commit and its handling, and delivers it again', async () => {
    failNext = new Set([20]);
    const eventId = await db.transaction(() => bus.emitDurable('test.durable', { n: 20 }));
    // Committed with the change: the job is in the queue whatever becomes of this process.
    const [job] = await jobsOf(eventId);
    expect(job?.data.payload).toEqual({ n: 20 });
    // The first delivery dies mid-way; the job stays and is delivered again, with the same event id.
    const done = await eventually(
      async () => delivered.filter((d) => d.n === 20),
      (list) => list.length >= 2,
    );
    expect(done.map((d) => d.eventId)).toEqual([eventId, eventId]);
    expect(done.map((d) => d.retryCount)).toEqual([0, 1]);
    expect(
      (
        await eventually(
          () => jobsOf(eventId),
          ([j]) => j?.state === 'completed',
        )
      )[0]?.state,
    ).toBe('completed');
  });

  it('delivers a durable event before its caller’s answer even when the queue’s workers poll meanwhile', async () => {
    // The claim after the commit comes late (a busy pool, a loaded machine): three of the worker's
    // 0.5 s polls pass between the commit and it. The job is still its writer's to run at once.
    const queue = app.running.app.get(QueueService);
    const claim = queue.claim.bind(queue);
    const claims: boolean[] = [];
    const slowClaim = vi.spyOn(queue, 'claim').mockImplementation(async (name, id) => {
      await new Promise((r) => setTimeout(r, 1600));
      claims.push(await claim(name, id));
      return claims.at(-1)!;
    });
    try {
      const eventId = await db.transaction(() => bus.emitDurable('test.durable', { n: 30 }));
      // Taken by the writer, not by a worker; delivered once, before the answer.
      expect(claims).toEqual([true]);
      expect(delivered.filter((d) => d.n === 30)).toEqual([{ n: 30, eventId, retryCount: 0 }]);
      expect((await jobsOf(eventId)).map((j) => j.state)).toEqual(['completed']);
    } finally {
      slowClaim.mockRestore();
    }
  });

  it('drains a queue as fast as its jobs run, not one batch per polling interval', async () => {
    // Jobs queued as a retry would be (no process delivers them at once): only the worker runs them.
    // It fetches one job at a time and polls every 0.5 s; had it slept out its interval after each
    // job, 30 jobs would take at least 14.5 s. A full batch fetches again at once.
    const queue = app.running.app.get(QueueService);
    const ns = Array.from({ length: 30 }, (_, i) => 100 + i);
    const started = Date.now();
    for (const n of ns) await queue.send('events.durable', { event: 'test.durable', handler: 'EventsTest.durable', eventId: randomUUID(), payload: { n } });
    const done = await eventually(
      async () => new Set(delivered.map((d) => d.n).filter((n) => n >= 100)),
      (set) => set.size === ns.length,
    );
    const tookMs = Date.now() - started;
    expect([...done].sort((a, b) => a - b)).toEqual(ns);
    expect(tookMs).toBeLessThan(10_000);
  });

  it('commits an atomic handler’s writes with its job: a delivery that dies leaves nothing behind', async () => {
    const user = await app.running.app.get(UsersService).create({ email: 'events-atomic@example.com', platformRole: 'expert' });
    const notifications = app.running.app.get(NotificationsService);
    let attempts = 0;
    bus.onDurable(
      'test.atomic',
      'EventsTest.atomic',
      async ({ userId }) => {
        attempts++;
        await notifications.notify({ userId, type: 'test.atomic', message: 'once' });
        if (attempts === 1) throw new Error('the worker died after writing');
      },
      { atomic: true },
    );
    const eventId = await db.transaction(() => bus.emitDurable('test.atomic', { userId: user.id }));
    await eventually(
      () => jobsOf(eventId),
      ([j]) => j?.state === 'completed',
    );
    expect(attempts).toBe(2);
    const mine = (await notifications.list(user.id, { limit: 50, offset: 0 })).filter((n) => n.type === 'test.atomic');
    expect(mine).toHaveLength(1);
  });
});
