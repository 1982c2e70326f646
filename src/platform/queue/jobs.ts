/**
 * The typed job map: job name -> payload. Each module declares its jobs in its `<domain>.jobs.ts`
 * by augmenting this interface, so a producer and its worker cannot disagree:
 *
 *   declare module '../../platform/queue/jobs.js' {
 *     interface JobMap { 'billing.generate-invoices': { month: string } }
 *   }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface JobMap {}

export type JobName = keyof JobMap;

export interface JobOptions {
  retryLimit?: number;
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  expireInSeconds?: number;
  /** At most one queued job per key (pg-boss singletonKey). */
  singletonKey?: string;
  startAfterSeconds?: number;
}

export interface WorkerOptions extends JobOptions {
  /** Jobs fetched per poll. */
  batchSize?: number;
  pollingIntervalSeconds?: number;
  /**
   * Run the jobs of a batch at the same time rather than one after the other (for handlers that
   * wait on the network: model calls, vendor APIs). A failure fails the batch, so its jobs are
   * retried: the handler must be idempotent.
   */
  parallel?: boolean;
}
