import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.js';

/** A batch runner the test settles by hand: each call's items, and its resolver. */
function manualRunner() {
  const calls: Array<{ items: number[]; settle: () => void }> = [];
  const run = (items: number[]) =>
    new Promise<string[]>((resolve) => {
      calls.push({ items, settle: () => resolve(items.map((i) => `done ${i}`)) });
    });
  return { calls, run };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('GroupCommit', () => {
  it('runs a lone item at once, and what arrives while a batch is in flight together in the next one, at most maxBatch each', async () => {
    const { calls, run } = manualRunner();
    const group = new GroupCommit(run, 3);
    const first = group.submit(1);
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    const later = [2, 3, 4, 5, 6].map((i) => group.submit(i));
    await tick();
    // Nothing more goes while the first batch is in flight.
    expect(calls).toHaveLength(1);
    calls[0]!.settle();
    expect(await first).toBe('done 1');
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    calls[1]!.settle();
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4], [5, 6]]);
    calls[2]!.settle();
    expect(await Promise.all(later)).toEqual(['done 2', 'done 3', 'done 4', 'done 5', 'done 6']);
  });

  it('runs each item of a failed batch again alone, so one bad item fails only its own caller', async () => {
    const group = new GroupCommit(async (items: number[]) => {
      if (items.includes(13)) throw new Error('thirteen');
      return items.map((i) => i * 2);
    }, 8);
    const blocker = group.submit(0);
    const outcomes = Promise.allSettled([1, 13, 2].map((i) => group.submit(i)));
    expect(await blocker).toBe(0);
    const settled = await outcomes;
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([2, 'thirteen', 4]);
  });

  it('fails the callers of a runner that settles another number of items than it was given', async () => {
    const group = new GroupCommit(async (items: number[]) => items.slice(1), 4);
    const settled = await Promise.allSettled([group.submit(1), group.submit(2), group.submit(3)]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((settled[0] as PromiseRejectedResult).reason).toEqual(new Error("a group commit's batch of 1 settled 0 items"));
  });

  it('keeps going after a failure: the next items run', async () => {
    let fail = true;
    const group = new GroupCommit(async (items: number[]) => {
      if (fail) throw new Error('down');
      return items;
    }, 4);
    await expect(group.submit(1)).rejects.toThrow('down');
    fail = false;
    await expect(group.submit(2)).resolves.toBe(2);
  });

  it("runs its batches outside the callers' async context (a caller's transaction is not another's)", async () => {
    const als = new AsyncLocalStorage<string>();
    const seen: Array<string | undefined> = [];
    const group = new GroupCommit(async (items: number[]) => {
      seen.push(als.getStore());
      await tick();
      return items;
    }, 4);
    await als.run('first caller', () => Promise.all([group.submit(1), group.submit(2)]));
    await als.run('second caller', () => group.submit(3));
    expect(seen).toEqual([undefined, undefined, undefined]);
  });

  it('needs a batch size of at least 1', () => {
    expect(() => new GroupCommit(async (items: number[]) => items, 0)).toThrow(/at least 1/);
  });
});
