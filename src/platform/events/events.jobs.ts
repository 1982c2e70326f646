import type { DurableEventName } from './domain-events.js';

declare module '../queue/jobs.js' {
  interface JobMap {
    /** The outbox: one durable event for one of its handlers, written with the change that caused it. */
    'events.durable': { event: DurableEventName; handler: string; eventId: string; payload: unknown };
  }
}
