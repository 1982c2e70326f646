import type { Principal } from '../../platform/auth/principal.js';
import { definePort } from '../../platform/ports/ports.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';
import type { OrgRow } from './orgs.tables.js';

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

/** What the org needs of its client invite (provided by the onboarding module, which imports this one). */
export interface OrgInvitePort {
  /**
   * Inside the transaction that changes the org's admin email (spec 2.1: the recipient of the
   * client invite): an invite already sent follows the new address, and the former one loses what
   * the invite gave it.
   */
  followAdminEmail(scope: OrgScope, org: OrgRow): Promise<void>;
}
export const ORG_INVITE = definePort<OrgInvitePort>('ORG_INVITE');
