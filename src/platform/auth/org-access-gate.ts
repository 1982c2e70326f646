import { Injectable, type OnModuleInit } from '@nestjs/common';
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { isClientRole, type PlatformRole } from '../../contracts/roles.js';
import { AppError } from '../errors/app-error.js';
import { definePort, Ports } from '../ports/ports.js';
import type { Principal } from './principal.js';

/** Which of these orgs have their access gate closed (spec 3.6: a suspended org). */
export interface ClosedOrgsSource {
  closedAmong(orgIds: string[]): Promise<Set<string>>;
  /**
   * The same rule as a part of another statement: the ids among `orgIds` (a `uuid[]` value) whose
   * gate is closed, as a `uuid[]`. The caller's read asks it, so a request reads the gate with
   * its caller.
   */
  closedAmongSql(orgIds: SQLWrapper): SQL<string[]>;
}
/** Provided by the billing module. */
export const CLOSED_ORGS_SOURCE = definePort<ClosedOrgsSource>('CLOSED_ORGS_SOURCE');

export const ORG_SUSPENDED_MESSAGE = 'This organization is suspended for non-payment; billing settings remain available';

/**
 * The one access gate of spec 3.2 / 3.6. The RequestGuard asks it for every client-role request
 * (routes marked @OpenWhileSuspended excepted) and the conversations module asks it before an
 * agent turn; the billing module says which orgs are closed (CLOSED_ORGS_SOURCE). It fails closed:
 * with no source, every org is closed.
 */
@Injectable()
export class OrgAccessGate implements OnModuleInit {
  private source?: ClosedOrgsSource;
  private started = false;

  constructor(private readonly ports: Ports) {}

  onModuleInit(): void {
    this.source = this.ports.find(CLOSED_ORGS_SOURCE);
    this.started = true;
  }

  private async closedAmong(orgIds: string[]): Promise<Set<string>> {
    return this.source ? this.source.closedAmong(orgIds) : new Set(orgIds);
  }

  /** Client roles are gated; internal staff keep working on a suspended org. */
  applies(role: PlatformRole): boolean {
    return isClientRole(role);
  }

  /**
   * The gate's rule as a part of a statement: the ids among `orgIds` (a `uuid[]` value) whose
   * gate is closed. Fails closed as the gate does: with no source, every one of them. A statement
   * built with it keeps it: build it once the app has started (its modules' ports are known).
   */
  closedAmongSql(orgIds: SQLWrapper): SQL<string[]> {
    // Before the ports are known the rule would be "every org closed", kept by the statement for good.
    if (!this.started) throw new Error('OrgAccessGate.closedAmongSql asked before the app started');
    return this.source ? this.source.closedAmongSql(orgIds) : sql<string[]>`(${orgIds})::uuid[]`;
  }

  async isOpen(orgId: string): Promise<boolean> {
    return !(await this.closedAmong([orgId])).has(orgId);
  }

  /**
   * A client request acts on the org it names (route or query `orgId`, when the caller is a
   * member), else on every org of the caller: with one of them closed the request is refused
   * (403 `org_suspended`), so an org-less route never leaks a suspended org's data. The orgs found
   * open are recorded on the principal (`openOrgIds`). `closedAtAuth`: the caller's member orgs
   * found closed by the statement that read the caller for this request (`closedAmongSql`);
   * without it, the gate reads them now.
   */
  async assertOpenFor(principal: Principal, requestedOrgId: string | undefined, closedAtAuth?: ReadonlySet<string>): Promise<void> {
    const named = requestedOrgId && principal.orgMemberships.some((m) => m.orgId === requestedOrgId) ? [requestedOrgId] : undefined;
    const orgIds = named ?? principal.orgMemberships.map((m) => m.orgId);
    if (orgIds.length === 0) return;
    const closed = closedAtAuth ?? (await this.closedAmong(orgIds));
    if (orgIds.some((id) => closed.has(id))) throw new AppError('org_suspended', ORG_SUSPENDED_MESSAGE);
    principal.openOrgIds = new Set(orgIds);
  }
}
