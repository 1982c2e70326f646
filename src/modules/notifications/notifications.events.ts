import type { NotifyInput } from './notifications.service.js';

declare module '../../platform/events/domain-events.js' {
  interface DomainEvents {
    /**
     * How other modules notify people: each recipient once, best-effort per recipient. Emitted in a
     * transaction, the notifications are written once it commits (and before the caller is answered).
     */
    'notifications.requested': { userIds: string[]; notice: Omit<NotifyInput, 'userId'> };
  }
  interface DurableDomainEvents {
    /**
     * A notification that must not be lost, to one person: written with the change that owes it
     * (emitDurable), stored exactly once when its job is delivered (the handler is atomic: a retry
     * or a second delivery of the job writes nothing more). One event per recipient keeps them
     * best-effort per recipient: one that cannot be written does not hold back the others.
     */
    'notifications.owed': { userId: string; notice: Omit<NotifyInput, 'userId'> };
  }
}
