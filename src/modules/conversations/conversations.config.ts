import { intFrom, STRANDED_AFTER_MS } from '../../platform/config/env-fields.js';
import { defineConfigSlice } from '../../platform/config/slice.js';

/** The message quota and when an agent turn a dead instance left is run again (docs/operations.md). */
export const conversationsConfig = defineConfigSlice('conversations', {
  variables: {
    ORG_MESSAGE_QUOTA_PER_HOUR: intFrom(1000, 1),
    TURN_LEASE_MS: intFrom(180_000, 1000),
    STRANDED_AFTER_MS,
  },
  build: (e) => ({
    limits: { orgMessageQuotaPerHour: e.ORG_MESSAGE_QUOTA_PER_HOUR },
    recovery: {
      /** A running agent turn is held this long; past it the sweeper may run it again. */
      turnLeaseMs: e.TURN_LEASE_MS,
      /** A turn still queued this long lost its request or job: the sweeper runs it. */
      strandedAfterMs: e.STRANDED_AFTER_MS,
    },
  }),
});

export type ConversationsConfig = ReturnType<typeof conversationsConfig.read>;
