import { AsyncResource } from 'node:async_hooks';

/**
 * Group commit: work that arrives while a batch is in flight waits and goes together in the next
 * one, so concurrent callers share one round trip and one commit instead of queueing for a
 * connection each. A lone caller goes at once (no timer, no added wait); under load the batches
 * grow by themselves, up to `maxBatch`. One batch is in flight at a time.
 *
 * `run` settles a batch: it returns one outcome per item, in order. When a batch of several items
 * fails as a whole, each item is run again alone, so one bad item fails only its own caller.
 * Batches run in the async context the group commit was made in, never in a caller's: the batches
 * after a caller's are other callers' work, and must not join its transaction (DbService keeps it
 * in the async context) or carry its request's context.
 */
export class GroupCommit<In, Out> {
  private waiting: Array<{ item: In; resolve: (out: Out) => void; reject: (err: unknown) => void }> = [];
  private flushing = false;
  private readonly context = new AsyncResource('GroupCommit');

  constructor(
    private readonly run: (items: In[]) => Promise<Out[]>,
    private readonly maxBatch: number,
  ) {
    if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new Error(`a group commit needs a batch size of at least 1, not ${maxBatch}`);
  }

  submit(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.flushing) this.context.runInAsyncScope(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.maxBatch);
        try {
          const outs = await this.runChecked(batch.map((w) => w.item));
          batch.forEach((w, i) => w.resolve(outs[i]!));
        } catch (err) {
          if (batch.length === 1) {
            batch[0]!.reject(err);
            continue;
          }
          // Alone, each item fails or passes on its own.
          await Promise.all(
            batch.map(async (w) => {
              try {
                w.resolve((await this.runChecked([w.item]))[0]!);
              } catch (alone) {
                w.reject(alone);
              }
            }),
          );
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private async runChecked(items: In[]): Promise<Out[]> {
    const outs = await this.run(items);
    if (outs.length !== items.length) throw new Error(`a group commit's batch of ${items.length} settled ${outs.length} items`);
    return outs;
  }
}
