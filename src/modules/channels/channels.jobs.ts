declare module '../../platform/queue/jobs.js' {
  interface JobMap {
    /** Process one verified inbound call (the row of inbound_events). */
    'channels.inbound': { eventId: string };
    /** Send one row of the outbox (of the org it names). */
    'channels.outbound': { orgId: string; outboundId: string };
  }
}

export {};
