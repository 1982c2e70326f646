declare module '../../platform/events/domain-events.js' {
  interface DurableDomainEvents {
    /**
     * A payment of the org failed (spec 3.6): its grace period runs; the billing-responsible people
     * are told. Written with the dunning state it starts, so a crash after the commit loses no notice.
     */
    'billing.payment_failed': { orgId: string; invoiceId: string | null; reason: string | null };
  }
}

export {};
