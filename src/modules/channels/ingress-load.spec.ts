import { describe, expect, it } from 'vitest';
import { INGRESS_FULL_MS, INGRESS_QUIET_MS, IngressLoad } from './ingress-load.js';

const elapsed = async (work: Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await work;
  return performance.now() - started;
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
    expect(load.busy, 'the second call is still being admitted').toBe(true);
    endSecond();
    await new Promise((r) => setTimeout(r, INGRESS_QUIET_MS + 10));
    expect(load.busy).toBe(false);
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
});
