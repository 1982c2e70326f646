import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BillingWebhookEvent } from '../../src/contracts/billing.js';
import { DunningService } from '../../src/modules/billing/index.js';
import { NotificationsService } from '../../src/modules/notifications/index.js';
import type { OrgRow } from '../../src/modules/orgs/index.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { EventBus } from '../../src/platform/events/event-bus.js';
import { durableEventsDelivered } from '../support/durable-events.js';
import { startMedium, type Medium } from '../support/factories.js';
import { rows } from '../support/rows.js';

interface OutboxJob {
  id: string;
  state: string;
  retry_count: number;
  data: { event: string; handler: string; eventId: string; payload: Record<string, unknown> };
}

/**
 * Dunning's notices are durable events (docs/architecture.md, the event bus): the payment failure is
 * written with the dunning state it starts, and the job queue delivers its notices, each stored once.
 */
describe('payment-failure notices through the outbox', () => {
  let medium: Medium;
  let db: DbService;
  let dunning: DunningService;

  const failure = (org: OrgRow, id: string): BillingWebhookEvent => ({ id, type: 'payment_failed', data: { orgId: org.id, failureReason: 'card declined' } });
  /** The outbox jobs of the org's payment failures, and of the notices owed to its people. */
  const outbox = (org: OrgRow) =>
    rows<OutboxJob>(
      db,
      sql`select id, state, retry_count, data from pgboss.job where name = 'events.durable' and (data->'payload'->>'orgId' = ${org.id} or data->'payload'->'notice'->'meta'->>'orgId' = ${org.id}) order by created_on`,
    );
  const noticesOf = (user: { id: string }) => medium.rows('app_notifications', { recipient_user_id: user.id, event_type: 'billing.payment_failed' });
  /** An org with its AM, and the people told of its payment failures (owner, billing) and one who is not (member). */
  const orgWithPeople = async () => {
    const org = await medium.newOrg();
    const owner = await medium.newMember(org, { orgRole: 'owner' });
    const billing = await medium.newMember(org, { orgRole: 'billing' });
    const member = await medium.newMember(org);
    return { org, am: { id: org.assignedAmId! }, owner, billing, member };
  };

  beforeAll(async () => {
    medium = await startMedium();
    db = medium.get(DbService);
    dunning = medium.get(DunningService);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await medium?.close();
  });

  it('writes the failure with its dunning change; the queue then tells the AM, owner and billing member, once each', async () => {
    const { org, am, owner, billing, member } = await orgWithPeople();
    expect(await dunning.handleEvent(failure(org, 'evt_durable_1'))).toEqual({ ok: true, duplicate: false });
    // Committed with the change: the event is in the queue, whatever becomes of this process now.
    const [written] = await outbox(org);
    expect(written?.data).toMatchObject({ event: 'billing.payment_failed', handler: 'DunningService.notifyFailure', payload: { orgId: org.id, invoiceId: null, reason: 'card declined' } });

    // Delivered at once after the commit, as an in-process event would be: the answer comes after the notices.
    for (const user of [am, owner, billing]) expect(await noticesOf(user)).toHaveLength(1);
    await durableEventsDelivered(db);
    for (const user of [am, owner, billing]) expect(await noticesOf(user)).toHaveLength(1);
    expect(await noticesOf(member)).toHaveLength(0);
    const [notice] = await noticesOf(owner);
    expect(notice).toMatchObject({ title: 'Payment failed', meta: expect.objectContaining({ orgId: org.id, slug: org.slug }) });
    expect((await outbox(org)).map((j) => [j.data.event, j.state])).toEqual([['billing.payment_failed', 'completed'], ...[am, owner, billing].map(() => ['notifications.owed', 'completed'])]);
  });

  it('writes nothing when the transaction of the failure rolls back: no event, no notice, no dunning', async () => {
    const { org, am, owner } = await orgWithPeople();
    await expect(
      db.transaction(async () => {
        await dunning.handleEvent(failure(org, 'evt_durable_rolled_back'));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await outbox(org)).toEqual([]);
    await durableEventsDelivered(db);
    expect(await noticesOf(am)).toHaveLength(0);
    expect(await noticesOf(owner)).toHaveLength(0);
    expect(await medium.rows('billing_accounts', { org_id: org.id, payment_state: 'past_due' })).toEqual([]);
    // The event itself was not recorded either: sent again, it is new, and tells each person once.
    expect(await dunning.handleEvent(failure(org, 'evt_durable_rolled_back'))).toEqual({ ok: true, duplicate: false });
    await durableEventsDelivered(db);
    expect(await noticesOf(am)).toHaveLength(1);
    expect(await noticesOf(owner)).toHaveLength(1);
  });

  it('stores one notice per person when the jobs are delivered twice: after a delivery died mid-way, and again once completed', async () => {
    const { org, am, owner, billing } = await orgWithPeople();
    const bus = medium.get(EventBus);
    const notifications = medium.get(NotificationsService);
    // The first delivery of the failure dies after writing its first owed notice...
    const emitDurable = bus.emitDurable.bind(bus);
    let failureDied = false;
    vi.spyOn(bus, 'emitDurable').mockImplementation(async (event, payload) => {
      const id = await emitDurable(event, payload);
      if (event === 'notifications.owed' && !failureDied) {
        failureDied = true;
        throw new Error('the worker died after writing a notice');
      }
      return id;
    });
    // ...and the first delivery of each notice dies after storing it.
    const notify = notifications.notify.bind(notifications);
    const died = new Set<string>();
    vi.spyOn(notifications, 'notify').mockImplementation(async (input) => {
      const dto = await notify(input);
      if (input.type === 'billing.payment_failed' && !died.has(input.userId)) {
        died.add(input.userId);
        throw new Error('the worker died after storing the notice');
      }
      return dto;
    });

    await dunning.handleEvent(failure(org, 'evt_durable_twice'));
    await durableEventsDelivered(db, 60_000);
    expect(failureDied).toBe(true);
    expect([...died].sort()).toEqual([am, owner, billing].map((u) => u.id).sort());
    for (const user of [am, owner, billing]) expect(await noticesOf(user)).toHaveLength(1);
    const jobs = await outbox(org);
    // Each job was delivered a second time, and the second delivery is the one that stands. The first
    // died: made at once after the commit that wrote the job, it rolled back whole (its claim of the
    // job included) and the queue's own first delivery made it (retry_count 0, once the writer's
    // lease was over); or it failed and the queue retried it once (retry_count 1).
    expect(jobs.map((j) => [j.data.event, j.state])).toEqual([['billing.payment_failed', 'completed'], ...[am, owner, billing].map(() => ['notifications.owed', 'completed'])]);
    for (const job of jobs) expect(job.retry_count, job.data.event).toBeLessThanOrEqual(1);

    // A job delivered again once completed (another worker took it when its lease expired) writes nothing.
    const deliver = (bus as unknown as { deliver(job: OutboxJob['data'], meta: { id: string; retryCount: number }): Promise<void> }).deliver.bind(bus);
    for (const job of jobs) await expect(deliver(job.data, { id: job.id, retryCount: 2 })).rejects.toThrow('no longer this worker');
    for (const user of [am, owner, billing]) expect(await noticesOf(user)).toHaveLength(1);
    expect(await outbox(org)).toHaveLength(jobs.length);
  });
});
