import type { Principal } from '../../platform/auth/principal.js';
import { definePort } from '../../platform/ports/ports.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';

/** What the org needs of its Specialist assignments (provided by the specialists module, which imports this one). */
export interface OrgAssignmentsPort {
  /** The Phase 0 indicator: a Specialist is assigned. */
  hasAssignment(scope: OrgScope): Promise<boolean>;
  /** Inside the transaction that changes the org's slug: the workspace aliases follow it (spec 2.3.1). */
  followSlug(actor: Principal | null, scope: OrgScope, slug: string): Promise<void>;
}
export const ORG_ASSIGNMENTS = definePort<OrgAssignmentsPort>('ORG_ASSIGNMENTS');

/** What the org needs of its Expert grants (provided by the experts module). */
export interface OrgGrantsPort {
  /** The Phase 0 indicator: an Expert is mapped. */
  hasGrant(scope: OrgScope): Promise<boolean>;
}
export const ORG_GRANTS = definePort<OrgGrantsPort>('ORG_GRANTS');
