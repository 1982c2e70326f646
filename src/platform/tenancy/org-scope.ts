import { eq, type Column, type SQL } from 'drizzle-orm';

declare const orgScopeBrand: unique symbol;

/**
 * The org a query over tenant rows acts on. Repository functions of tenant data take it first and
 * put `inOrg(table.orgId, scope)` in their WHERE, so a tenant query without its org does not
 * compile. The brand is a type that exists nowhere at runtime: an object literal `{ orgId }` is not
 * an OrgScope; only the constructors below make one, each at a place that knows the org is right:
 *
 * - `requestScope`: the request pipeline, once the caller's membership, org-wide role, a domain
 *   access rule (grants, assignments) or reach was checked for that org (see `memberScope` in platform/auth for client members);
 * - `jobScope`: a job or sweep acting on the org its payload or row carries (never a client's id);
 * - `unscopedOrg`: the rare platform-wide path, with its reason; greppable, like every `unscoped*`
 *   repository function.
 */
export interface OrgScope {
  readonly orgId: string;
  readonly [orgScopeBrand]: true;
}

/** Who vouched for the org of a request. */
export type ScopeEvidence = 'membership' | 'org_wide_role' | 'access_rule' | 'reach';

function mint(orgId: string): OrgScope {
  return Object.freeze({ orgId }) as OrgScope;
}

/** The request pipeline: the caller was checked for this org (`by` says how). */
export function requestScope(orgId: string, _by: ScopeEvidence): OrgScope {
  return mint(orgId);
}

/** A job, worker or sweep acting on the org its own payload or row names. */
export function jobScope(carrier: { readonly orgId: string }): OrgScope {
  return mint(carrier.orgId);
}

/**
 * The platform-wide escape: an org found by the platform itself (a vendor's webhook naming its
 * integration, a secret token, a seed). Say why; keep it rare.
 */
export function unscopedOrg(orgId: string, _reason: string): OrgScope {
  return mint(orgId);
}

/** The tenant condition of a query: `column = scope.orgId`. */
export function inOrg(column: Column, scope: OrgScope): SQL {
  return eq(column, scope.orgId);
}
