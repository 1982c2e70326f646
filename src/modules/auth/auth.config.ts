import { optionalString } from '../../platform/config/env-fields.js';
import { defineConfigSlice } from '../../platform/config/slice.js';

/** The one-time bootstrap of the first platform administrator (unset: bootstrap is disabled). */
export const authConfig = defineConfigSlice('auth', {
  variables: { BOOTSTRAP_TOKEN: optionalString },
  build: (e) => ({ bootstrapToken: e.BOOTSTRAP_TOKEN }),
});

export type AuthConfig = ReturnType<typeof authConfig.read>;
