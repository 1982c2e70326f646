import { AppError } from '../errors/app-error.js';
import { requestScope, type OrgScope } from '../tenancy/org-scope.js';
import type { Principal } from './principal.js';

/**
 * The org a client-side request acts on, from the caller's verified memberships only: the one
 * asked for when the caller belongs to it (404 otherwise: never reveal another org), else the
 * caller's only org.
 */
export function memberOrgId(principal: Principal, requested?: string): string {
  if (requested) {
    if (!principal.orgMemberships.some((m) => m.orgId === requested)) throw AppError.notFound('Organization');
    return requested;
  }
  if (principal.orgMemberships.length === 1) return principal.orgMemberships[0]!.orgId;
  if (principal.orgMemberships.length === 0) throw AppError.notFound('Organization');
  throw new AppError('validation_failed', 'Invalid query', { details: [{ field: 'query.orgId', message: 'You belong to several orgs: say which' }] });
}

/** The same org as a scope for repositories: the request pipeline's verified membership. */
export function memberScope(principal: Principal, requested?: string): OrgScope {
  return requestScope(memberOrgId(principal, requested), 'membership');
}
