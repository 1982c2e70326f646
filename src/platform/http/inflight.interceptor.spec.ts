import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { InflightTracker } from './inflight.interceptor.js';

describe('InflightTracker', () => {
  it('lets shutdown wait for running handlers, and no longer than the timeout', async () => {
    const tracker = new InflightTracker();
    const handler = new Subject<unknown>();
    tracker.intercept({} as never, { handle: () => handler.asObservable() }).subscribe();
    expect(tracker.inflight).toBe(1);
    let drained = false;
    const drain = tracker.drain(5_000).then(() => (drained = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(drained).toBe(false);
    handler.next('done');
    handler.complete();
    await drain;
    expect(tracker.inflight).toBe(0);

    const stuck = new Subject<unknown>();
    tracker.intercept({} as never, { handle: () => stuck.asObservable() }).subscribe();
    const started = Date.now();
    await tracker.drain(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});
