import { optionalString } from '../../platform/config/env-fields.js';
import { defineConfigSlice } from '../../platform/config/slice.js';

/** The domain of the workspace aliases an org's assignments get (`<first>.<org-slug>@<domain>`). */
export const orgsConfig = defineConfigSlice('orgs', {
  variables: {
    WORKSPACE_DOMAIN: optionalString.transform((v) => v ?? 'workspace.example.com'),
  },
  build: (e) => ({ workspaceDomain: e.WORKSPACE_DOMAIN }),
});

export type OrgsConfig = ReturnType<typeof orgsConfig.read>;
