import { and, eq, or, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { isClientRole } from '../../contracts/roles.js';
import type { Principal } from '../../platform/auth/principal.js';
import { anyUuid } from '../../platform/db/query-parts.js';
import { requestScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import type { ExpertCoverage } from '../experts/index.js';
import type { StatusActor } from './conversations.status.js';

/**
 * What part of the conversations a caller may see: every org (account managers, superadmins,
 * AI operators), the orgs they belong to (client roles), or what their grants cover (Experts).
 */
export type Reach = { kind: 'all' } | { kind: 'member'; orgIds: string[] } | { kind: 'grants'; grants: ExpertCoverage[] };

export function reaches(reach: Reach, thread: { orgId: string; specialistId: string }): boolean {
  switch (reach.kind) {
    case 'all':
      return true;
    case 'member':
      return reach.orgIds.includes(thread.orgId);
    case 'grants':
      return reach.grants.some((g) => g.orgId === thread.orgId && (g.scope === 'org' || g.specialistIds.includes(thread.specialistId)));
  }
}

/** The org of a thread the caller read through their Reach: the scope of what the request then does to it. */
export function threadScope(thread: { orgId: string }): OrgScope {
  return requestScope(thread.orgId, 'reach');
}

/** The same rule as a SQL condition on a table's org and Specialist columns (undefined: no limit). */
export function reachFilter(reach: Reach, cols: { orgId: PgColumn; specialistId: PgColumn }): SQL | undefined {
  switch (reach.kind) {
    case 'all':
      return undefined;
    case 'member':
      return reach.orgIds.length > 0 ? anyUuid(cols.orgId, reach.orgIds) : sql`false`;
    case 'grants': {
      const wide = reach.grants.filter((g) => g.scope === 'org').map((g) => g.orgId);
      const parts: SQL[] = [];
      if (wide.length > 0) parts.push(anyUuid(cols.orgId, wide));
      for (const g of reach.grants) {
        if (g.scope === 'specialist' && g.specialistIds.length > 0) parts.push(and(eq(cols.orgId, g.orgId), anyUuid(cols.specialistId, g.specialistIds))!);
      }
      return parts.length > 0 ? or(...parts) : sql`false`;
    }
  }
}

/** Client roles see the client view: no internal notes, Experts shown as the Specialist. */
export function isClientViewer(principal: Principal): boolean {
  return isClientRole(principal.platformRole);
}

export function statusActor(principal: Principal): StatusActor {
  if (isClientViewer(principal)) return 'client';
  const role = principal.platformRole;
  return role === 'expert' || role === 'account_manager' || role === 'superadmin' || role === 'ai_operator' ? role : 'client';
}
