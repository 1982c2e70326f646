declare module '../../platform/events/domain-events.js' {
  interface DurableDomainEvents {
    /** Spec 3.3: Restore re-enables the OSA's mail; what its mailbox held while suspended is to be sent. */
    'specialists.mailbox_restored': { orgId: string; assignmentId: string };
  }
}

export {};
