import { flag, intFrom } from '../../platform/config/env-fields.js';
import { defineConfigSlice } from '../../platform/config/slice.js';

/** Mailbox provisioning (docs/mailboxes.md). */
export const specialistsConfig = defineConfigSlice('specialists', {
  variables: {
    MAILBOX_AUTO_PROVISION: flag,
    MAILBOX_RETRY_DELAY_S: intFrom(10, 0),
  },
  build: (e) => ({
    /** The environment-level gate: provision mailboxes on assignment ("Provision now" bypasses it). */
    mailbox: { autoProvision: e.MAILBOX_AUTO_PROVISION, retryDelayS: e.MAILBOX_RETRY_DELAY_S },
  }),
});

export type SpecialistsConfig = ReturnType<typeof specialistsConfig.read>;
