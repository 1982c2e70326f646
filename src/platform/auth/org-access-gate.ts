import { Injectable } from '@nestjs/common';
import { CLIENT_ROLES, type PlatformRole } from '../../contracts/roles.js';
import { AppError } from '../errors/app-error.js';
import type { Principal } from './principal.js';

/** Which of these orgs have their access gate closed (spec 3.6: a suspended org). */
export type ClosedOrgsSource = (orgIds: string[]) => Promise<Set<string>>;

export const ORG_SUSPENDED_MESSAGE = 'This organization is suspended for non-payment; billing settings remain available';

/**
 * The one access gate of spec 3.2 / 3.6. The RequestGuard asks it for every client-role request
 * (routes marked @OpenWhileSuspended excepted) and the conversations module asks it before an
 * agent turn; the billing module says which orgs are closed. Open until a source is set.
 */
@Injectable()
export class OrgAccessGate {
  private source: ClosedOrgsSource = async () => new Set();

  setSource(source: ClosedOrgsSource): void {
    this.source = source;
  }

  /** Client roles are gated; internal staff keep working on a suspended org. */
  applies(role: PlatformRole): boolean {
    return (CLIENT_ROLES as readonly PlatformRole[]).includes(role);
  }

  async isOpen(orgId: string): Promise<boolean> {
    return !(await this.source([orgId])).has(orgId);
  }

  /**
   * A client request acts on the org it names (route or query `orgId`, when the caller is a
   * member), else on every org of the caller: with one of them closed the request is refused
   * (403 `org_suspended`), so an org-less route never leaks a suspended org's data.
   */
  async assertOpenFor(principal: Principal, requestedOrgId: string | undefined): Promise<void> {
    const named = requestedOrgId && principal.orgMemberships.some((m) => m.orgId === requestedOrgId) ? [requestedOrgId] : undefined;
    const orgIds = named ?? principal.orgMemberships.map((m) => m.orgId);
    if (orgIds.length === 0) return;
    const closed = await this.source(orgIds);
    if (orgIds.some((id) => closed.has(id))) throw new AppError('org_suspended', ORG_SUSPENDED_MESSAGE);
  }
}
