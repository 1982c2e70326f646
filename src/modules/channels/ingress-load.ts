import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

/** Quiet: no webhook call in flight on this instance for this long. */
export const INGRESS_QUIET_MS = 20;
/** The longest an inbound event waits for the webhooks to be quiet before it is processed all the same. */
export const INGRESS_YIELD_MAX_MS = 1_000;
const POLL_MS = 10;

/**
 * The webhook answers a vendor waits for come before the work that can wait (spec 4.8: verify,
 * keep, answer at once; a worker does the rest). While this instance admits verified webhook
 * calls, the inbound worker starts no new event: a burst is kept and answered with the instance's
 * CPU and database connections to itself, then processed. Only calls whose signature checked out
 * count, so nobody without a vendor's secret can hold processing back. The wait is bounded: a
 * steady stream of calls slows processing down and never stops it (the queue's depth limit is
 * what sheds load).
 */
@Injectable()
export class IngressLoad {
  private inFlight = 0;
  private lastEndedAt = Number.NEGATIVE_INFINITY;

  /** A verified webhook call is being admitted until the returned function is called (once). */
  begin(): () => void {
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.lastEndedAt = performance.now();
    };
  }

  /** Whether a webhook call is being admitted, or one ended less than INGRESS_QUIET_MS ago. */
  get busy(): boolean {
    return this.inFlight > 0 || performance.now() - this.lastEndedAt < INGRESS_QUIET_MS;
  }

  /** Resolves once the webhooks are quiet, or after `maxWaitMs` at the latest. */
  async quiet(maxWaitMs = INGRESS_YIELD_MAX_MS): Promise<void> {
    const until = performance.now() + maxWaitMs;
    while (this.busy && performance.now() < until) await sleep(POLL_MS);
  }
}
