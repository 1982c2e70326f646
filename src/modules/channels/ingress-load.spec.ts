import { describe, expect, it, vi } from 'vitest';
import { INGRESS_BUSY_GAP_MS, INGRESS_FULL_MS, INGRESS_LIGHT_SHARE, INGRESS_QUIET_MS, INGRESS_SHARE_WINDOW_MS, INGRESS_STALL_WINDOW_MS, IngressLoad } from './ingress-load.js';

const elapsed = async (work: Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await work;
  return performance.now() - started;
};

/** Holds the event loop as an overloaded instance's other work does. */
const stallLoop = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A steady stream of calls: one every `everyMs`, each in flight `takesMs`, until stopped. Each
 * leaves less quiet than INGRESS_QUIET_MS before the next, as a stream of a few tens of calls a
 * second does.
 */
const stream = (load: IngressLoad, everyMs: number, takesMs: number): (() => void) => {
  const call = () => {
    const end = load.begin();
    setTimeout(end, takesMs);
  };
  call();
  const timer = setInterval(call, everyMs);
  return () => clearInterval(timer);
};

describe('IngressLoad', () => {
  it('is quiet at once when no webhook call is being answered', async () => {
    const load = new IngressLoad();
    expect(load.busy).toBe(false);
    expect(await elapsed(load.quiet(5_000))).toBeLessThan(50);
  });

  it('holds the worker while a call is admitted, and lets it go once the calls have been quiet a moment', async () => {
    const load = new IngressLoad();
    const endFirst = load.begin();
    const endSecond = load.begin();
    expect(load.busy).toBe(true);

    let quiet = false;
    const waited = load.quiet(5_000).then(() => (quiet = true));
    endFirst();
    await new Promise((r) => setTimeout(r, 60));
    expect(quiet, 'one call is still being admitted').toBe(false);
    const endedAt = performance.now();
    endSecond();
    await waited;
    expect(performance.now() - endedAt).toBeGreaterThanOrEqual(INGRESS_QUIET_MS - 2);
    expect(load.busy).toBe(false);
  });

  it('counts a call as ended once, however often it is told', async () => {
    const load = new IngressLoad();
    const endFirst = load.begin();
    const endSecond = load.begin();
    endFirst();
    endFirst();
    // Past the quiet window and the time a stall of the loop counts after a call's end: only a call
    // still in flight keeps the worker held now, however loaded the machine.
    await sleep(INGRESS_STALL_WINDOW_MS + 50);
    expect(load.busy, 'the second call is still being admitted').toBe(true);
    endSecond();
    // Quiet comes once the window has passed; a stall on a loaded machine only makes it later.
    await vi.waitFor(() => expect(load.busy).toBe(false), { timeout: 5_000, interval: 10 });
    // Nothing was counted below zero: the next call holds the worker as the first did.
    const endThird = load.begin();
    await sleep(INGRESS_STALL_WINDOW_MS + 50);
    expect(load.busy, 'a new call is being admitted').toBe(true);
    endThird();
  });

  it('lets the events waiting together through one per bound while calls keep coming', async () => {
    const load = new IngressLoad();
    const end = load.begin();
    const started = performance.now();
    const passedAt: number[] = [];
    await Promise.all(Array.from({ length: 3 }, () => load.quiet(100).then(() => passedAt.push(performance.now() - started))));
    end();
    // One after 100 ms, the next 100 ms later, and so on: never all three at once.
    expect(passedAt).toHaveLength(3);
    expect(passedAt[0]).toBeGreaterThanOrEqual(95);
    expect(passedAt[1]! - passedAt[0]!).toBeGreaterThanOrEqual(95);
    expect(passedAt[2]! - passedAt[1]!).toBeGreaterThanOrEqual(95);
  });

  it('does not hold the worker back while the calls take a small share of the time (a steady stream it can process)', async () => {
    const load = new IngressLoad();
    // A call every 25 ms, each 3 ms in flight: never INGRESS_QUIET_MS without a call, about 12% of the time loaded.
    const stop = stream(load, 25, 3);
    try {
      await sleep(INGRESS_SHARE_WINDOW_MS + 50);
      // Held back, these would pass one per second (the first after 1 s): one event a second until the queue is full.
      const took = await elapsed(Promise.all(Array.from({ length: 5 }, () => load.quiet(1_000))));
      expect(took).toBeLessThan(900);
    } finally {
      stop();
    }
  });

  it('holds the worker while a call takes the whole busy time, and while calls overlap however light the time so far', async () => {
    const load = new IngressLoad();
    let end = load.begin();
    expect(load.loadShare()).toBeGreaterThan(0.99);
    expect(await elapsed(load.quiet(150))).toBeGreaterThanOrEqual(140);
    end();
    // The same busy time (no second without calls), all but idle over its last 250 ms (and past the
    // last unclaimed turn by more than a bound); then two calls at once.
    await sleep(INGRESS_SHARE_WINDOW_MS + 200);
    load.begin()();
    end = load.begin();
    const endOther = load.begin();
    expect(load.loadShare()).toBeLessThan(INGRESS_LIGHT_SHARE);
    expect(await elapsed(load.quiet(150)), 'two calls in flight: a burst').toBeGreaterThanOrEqual(140);
    end();
    endOther();
  });

  it('measures the share over the busy time only: a quiet gap before it does not make a burst light', async () => {
    const load = new IngressLoad();
    load.begin()();
    // More than the gap after the call and after any stall the watch saw within INGRESS_STALL_WINDOW_MS of it.
    await sleep(INGRESS_STALL_WINDOW_MS + INGRESS_BUSY_GAP_MS + 50);
    // A new busy time: its first call has been in flight all of it.
    const end = load.begin();
    await sleep(30);
    expect(load.loadShare()).toBeGreaterThan(0.9);
    end();
  });

  it('does not hold the worker back while the queue is full (processing makes room)', async () => {
    const load = new IngressLoad();
    const refused = load.begin();
    const inFlight = load.begin();
    refused('full');
    expect(load.busy, 'a call found the queue full a moment ago').toBe(false);
    expect(await elapsed(load.quiet(5_000))).toBeLessThan(50);
    await new Promise((r) => setTimeout(r, INGRESS_FULL_MS + 20));
    expect(load.busy, 'the full queue is past; a call is still being admitted').toBe(true);
    inFlight();
  });

  it('waits no longer than its bound while calls keep coming', async () => {
    const load = new IngressLoad();
    const end = load.begin();
    const took = await elapsed(load.quiet(80));
    expect(took).toBeGreaterThanOrEqual(75);
    expect(took).toBeLessThan(1_000);
    end();
  });

  it('does not take a stall of the event loop right after a call for quiet', async () => {
    const load = new IngressLoad();
    load.begin()();
    // The loop is held longer than the quiet window: calls arriving meanwhile would wait unread.
    stallLoop(3 * INGRESS_QUIET_MS);
    expect(load.busy, 'the loop could not have seen a call while it was stalled').toBe(true);
    const stallEnded = performance.now();
    await load.quiet(5_000);
    expect(performance.now() - stallEnded).toBeGreaterThanOrEqual(INGRESS_QUIET_MS - 2);
    expect(load.busy).toBe(false);
  });

  it('leaves a stall long after the last call alone (a drain stalls the loop itself)', async () => {
    const load = new IngressLoad();
    load.begin()();
    await sleep(INGRESS_STALL_WINDOW_MS + 30);
    stallLoop(3 * INGRESS_QUIET_MS);
    expect(load.busy).toBe(false);
    expect(await elapsed(load.quiet(5_000))).toBeLessThan(50);
  });

  it('lets the waiting events through one per bound while calls come between stalls of the loop', async () => {
    const load = new IngressLoad();
    // An overloaded instance: a call is answered, then other work holds the loop longer than the quiet window.
    const overload = () => {
      load.begin()();
      stallLoop(2 * INGRESS_QUIET_MS);
    };
    const calls = setInterval(overload, 2.5 * INGRESS_QUIET_MS);
    overload();
    const started = performance.now();
    const passedAt: number[] = [];
    const waiting = Array.from({ length: 5 }, () => load.quiet(200).then(() => passedAt.push(performance.now() - started)));
    await sleep(500);
    const passedWhileBusy = passedAt.length;
    clearInterval(calls);
    await Promise.all(waiting);
    // One per 200 ms at most while the calls came; the rest once they stopped.
    expect(passedWhileBusy).toBeGreaterThanOrEqual(1);
    expect(passedWhileBusy).toBeLessThanOrEqual(3);
    expect(passedAt).toHaveLength(5);
  });
});
