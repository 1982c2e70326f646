import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

/** Quiet: no webhook call in flight on this instance for this long. */
export const INGRESS_QUIET_MS = 20;
/** While the webhooks stay busy, one waiting inbound event is processed per this many ms all the same. */
export const INGRESS_YIELD_MAX_MS = 1_000;
/** How long a call refused because the inbound queue is full (spec 7.1) keeps the worker from yielding. */
export const INGRESS_FULL_MS = 1_000;
/** A tick of the event loop's watch this much later than due: the loop was stalled, requests may wait unread. */
export const INGRESS_STALL_MS = 5;
/** Stalls count as busy only this long after a call ended: a burst's tail, never a drain's own load. */
export const INGRESS_STALL_WINDOW_MS = 250;
/** The share of the instance's time its webhook calls take is measured over the last this many ms. */
export const INGRESS_SHARE_WINDOW_MS = 250;
/**
 * Below this share (calls in flight, and stalls of the loop shortly after calls) the webhooks are a
 * light load: the worker does not give way to them, processing runs beside them.
 */
export const INGRESS_LIGHT_SHARE = 0.5;
/** A busy time ends once the calls have been quiet this long: a stream's shorter pauses are part of it. */
export const INGRESS_BUSY_GAP_MS = 1_000;
const POLL_MS = 10;

/** How an admitted call ended: `full` when it was refused because the inbound queue is full. */
export type IngressEnd = 'answered' | 'full';

/**
 * The webhook answers a vendor waits for come before the work that can wait (spec 4.8: verify,
 * keep, answer at once; a worker does the rest). While this instance admits verified webhook
 * calls, the inbound worker starts no new event: a burst is kept and answered with the instance's
 * CPU and database connections to itself, then processed. Only calls whose signature checked out
 * count, so nobody without a vendor's secret can hold processing back.
 *
 * Only a load that takes the instance's time counts. A burst keeps calls in flight nearly all the
 * time; a steady stream the instance can process (each call a few ms, the next some tens of ms
 * later) takes a small share, yet seldom leaves the quiet moment this waits for: held back, it was
 * processed one event a second until its queue filled (then 503s, and processing in waves). So
 * the worker gives way only while more than one call is in flight, or the calls (and stalls of
 * the loop shortly after them) took at least INGRESS_LIGHT_SHARE of the last
 * INGRESS_SHARE_WINDOW_MS of the current busy time.
 *
 * The wait is bounded, and the bound is shared: while the calls keep coming, the waiting events
 * pass one at a time, one per `maxWaitMs`, so a heavy stream slows processing down and never
 * stops it, and a long burst is not processed at full width beside it. A full queue is the
 * exception: once a call was refused because the queue is full (spec 7.1), the worker does not
 * yield for a while, since processing is what makes room.
 *
 * Quiet is measured in time the instance could have seen a call. A stalled event loop reads no
 * request: the calls that came meanwhile wait unread in their sockets (and then for the throttle's
 * round trip before they count), while the workers' timers fire first. So, shortly after calls,
 * a stall of the loop restarts the quiet window as a call's end does; without this an overloaded
 * instance (several sharing few cores) took its own lag for quiet and let every waiting event
 * through at once, which stalled it further.
 */
@Injectable()
export class IngressLoad {
  private inFlight = 0;
  private lastEndedAt = Number.NEGATIVE_INFINITY;
  private lastFullAt = Number.NEGATIVE_INFINITY;
  /** When a stall of the loop was last seen within INGRESS_STALL_WINDOW_MS of a call's end. */
  private lastStallAt = Number.NEGATIVE_INFINITY;
  /** The loop's watch: ticks every POLL_MS while calls were seen lately (`watch`). */
  private ticker: NodeJS.Timeout | undefined;
  private tickDueAt = 0;
  /** While busy: when the next waiting event may pass (undefined: nobody has waited yet). */
  private nextPassAt: number | undefined;
  /** When the current busy time began: the first call to begin after INGRESS_BUSY_GAP_MS without calls. */
  private busySince = Number.NEGATIVE_INFINITY;
  /** Since when a call has been in flight without a break (while `inFlight > 0`). */
  private flightSince = 0;
  /** The loaded spans of the last INGRESS_SHARE_WINDOW_MS, as [start, end] pairs: calls in flight, stalls after calls. */
  private spans: number[] = [];

  /** A verified webhook call is being admitted until the returned function is called (once). */
  begin(): (end?: IngressEnd) => void {
    const now = performance.now();
    if (this.inFlight === 0) {
      if (now - Math.max(this.lastEndedAt, this.lastStallAt) >= INGRESS_BUSY_GAP_MS) this.busySince = now;
      this.flightSince = now;
    }
    this.inFlight++;
    this.watch();
    let ended = false;
    return (end = 'answered') => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.lastEndedAt = performance.now();
      if (this.inFlight === 0) this.noteSpan(this.flightSince, this.lastEndedAt);
      if (end === 'full') this.lastFullAt = this.lastEndedAt;
    };
  }

  /**
   * The share of the last INGRESS_SHARE_WINDOW_MS of the busy time (all of it, when shorter) that
   * the calls in flight and the stalls after them took; overlaps count twice, so it errs on the
   * side of giving way.
   */
  loadShare(now = performance.now()): number {
    const from = Math.max(now - INGRESS_SHARE_WINDOW_MS, this.busySince);
    if (now <= from) return this.inFlight > 0 ? 1 : 0;
    let loaded = this.inFlight > 0 ? now - Math.max(this.flightSince, from) : 0;
    for (let i = 0; i < this.spans.length; i += 2) loaded += Math.max(0, this.spans[i + 1]! - Math.max(this.spans[i]!, from));
    return Math.min(1, loaded / (now - from));
  }

  /**
   * A light load: at most one call in flight (a burst's calls overlap, a stream's do not), and the
   * calls and stalls took less than INGRESS_LIGHT_SHARE of the recent busy time.
   */
  private light(now: number): boolean {
    return this.inFlight <= 1 && this.loadShare(now) < INGRESS_LIGHT_SHARE;
  }

  private noteSpan(start: number, end: number): void {
    const horizon = end - INGRESS_SHARE_WINDOW_MS;
    let keep = 0;
    while (keep < this.spans.length && this.spans[keep + 1]! < horizon) keep += 2;
    if (keep > 0) this.spans.splice(0, keep);
    this.spans.push(start, end);
  }

  /**
   * Whether the worker should give way: a webhook call is being admitted, or one ended (or the
   * loop stalled shortly after one did) less than INGRESS_QUIET_MS ago, and no call found the
   * queue full in the last INGRESS_FULL_MS.
   */
  get busy(): boolean {
    const now = performance.now();
    if (now - this.lastFullAt < INGRESS_FULL_MS) return false;
    if (this.inFlight > 0) return true;
    // An overdue tick: the loop is stalled right now (the tick notes the stalls it sees itself).
    if (this.ticker) this.noteStall(now);
    return now - Math.max(this.lastEndedAt, this.lastStallAt) < INGRESS_QUIET_MS;
  }

  /** Whether calls were seen lately enough for a stall of the loop to count. */
  private recent(now: number): boolean {
    return this.inFlight > 0 || now - this.lastEndedAt < INGRESS_STALL_WINDOW_MS;
  }

  /** A stall: the watch's tick is more than INGRESS_STALL_MS past due, shortly after calls; its span is load. */
  private noteStall(now: number): void {
    if (!this.recent(now) || now - this.tickDueAt <= INGRESS_STALL_MS) return;
    if (this.lastStallAt < this.tickDueAt) this.noteSpan(this.tickDueAt, now);
    this.lastStallAt = now;
  }

  /**
   * Watches the loop from a call's begin until INGRESS_STALL_WINDOW_MS after the last call ended:
   * a tick later than due by more than INGRESS_STALL_MS is a stall.
   */
  private watch(): void {
    if (this.ticker) return;
    this.tickDueAt = performance.now() + POLL_MS;
    this.ticker = setInterval(() => {
      const now = performance.now();
      this.noteStall(now);
      this.tickDueAt = now + POLL_MS;
      if (!this.recent(now)) {
        clearInterval(this.ticker);
        this.ticker = undefined;
      }
    }, POLL_MS);
    this.ticker.unref();
  }

  /**
   * Resolves once the webhooks are quiet or a light load, or when this caller's turn comes: while
   * they stay busy and heavy, the callers waiting together pass one per `maxWaitMs` (the first
   * `maxWaitMs` after the waiting began).
   */
  async quiet(maxWaitMs = INGRESS_YIELD_MAX_MS): Promise<void> {
    while (this.busy) {
      const now = performance.now();
      if (this.light(now)) return;
      // Nobody claimed the last turn when it came: nobody was waiting. A new wait starts its clock.
      if (this.nextPassAt === undefined || now - this.nextPassAt > maxWaitMs) this.nextPassAt = now + maxWaitMs;
      else if (now >= this.nextPassAt) {
        this.nextPassAt = now + maxWaitMs;
        return;
      }
      await sleep(POLL_MS);
    }
  }
}
