/**
 * The typed maps of domain events: event name -> payload. Each module declares the events it emits
 * in its own files by augmenting these interfaces (as the job map is extended), so an emitter and
 * its listeners cannot disagree, and no central file imports every module:
 *
 *   declare module '../../platform/events/domain-events.js' {
 *     interface DomainEvents { 'conversations.specialist_replied': { conversationId: string } }
 *     interface DurableDomainEvents { 'billing.payment_failed': { orgId: string } }
 *   }
 *
 * `DomainEvents` are delivered in process once the emitting transaction commits: an effect that
 * may be lost with the process (a socket push, a best-effort notice). `DurableDomainEvents` are
 * written with the change that causes them (an outbox on the job queue) and delivered at least once.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DomainEvents {}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DurableDomainEvents {}

export type DomainEventName = keyof DomainEvents;
export type DurableEventName = keyof DurableDomainEvents;

/** What a durable handler is told besides the payload: the event's id is the same on every delivery. */
export interface DurableDelivery {
  eventId: string;
  /** 0 on the first delivery; more when a failed or interrupted delivery is retried. */
  retryCount: number;
}

export type DomainEventHandler<K extends DomainEventName> = (payload: DomainEvents[K]) => unknown;
export type DurableEventHandler<K extends DurableEventName> = (payload: DurableDomainEvents[K], delivery: DurableDelivery) => Promise<unknown>;

export interface DurableHandlerOptions {
  /**
   * The handler only writes to the database: it runs in one transaction with the completion of its
   * job, so its writes commit exactly once (a retry after a crash finds nothing committed). A
   * handler with effects outside the database must not be atomic; it must be idempotent itself.
   */
  atomic?: boolean;
}
