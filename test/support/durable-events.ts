import { sql } from 'drizzle-orm';
import type { DbService } from '../../src/platform/db/db.service.js';
import { rows } from './rows.js';

/** The outbox jobs of durable events (`events.durable`) still to be delivered: waiting, retrying or running. */
export async function durableEventsPending(db: DbService): Promise<number> {
  const [row] = await rows<{ n: number | string }>(db, sql`select count(*) as n from pgboss.job where name = 'events.durable' and state in ('created', 'retry', 'active')`);
  return Number(row?.n ?? 0);
}

/**
 * Waits until every durable event written so far has been delivered by the job queue (a handler
 * that emits more durable events writes them before its own job completes, so none is missed).
 */
export async function durableEventsDelivered(db: DbService, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await durableEventsPending(db)) > 0) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the durable events to be delivered');
    await new Promise((r) => setTimeout(r, 100));
  }
}
