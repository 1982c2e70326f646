import { and, eq, or, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { isClientRole } from '../../contracts/roles.js';
import type { Principal } from '../../platform/auth/principal.js';
import { anyUuid } from '../../platform/db/query-parts.js';
import { requestScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import type { ExpertCoverage } from '../experts/index.js';
import type { StatusActor } from './conversations.status.js';

/**
 * What part of the conversations a caller may see: the typed multi-org scope of the reads that
 * find a thread before its org is known (docs/architecture.md "Tenancy is a type"). Repository
 * functions take it where they would take an OrgScope; the thread found this way mints the
 * `threadScope` of what the request then does to it.
 * - `member`: the orgs a client belongs to;
 * - `grants`: what an Expert's grants cover (an org, or Specialists of an org);
 * - `platform_wide`: every org, for the org-wide roles (account managers, superadmins, AI
 *   operators) only. It is the one reach with no org condition (`reachFilter`, and the
 *   `unscoped*` prepared statements the repositories run for it).
 */
export type Reach = { kind: 'platform_wide' } | { kind: 'member'; orgIds: string[] } | { kind: 'grants'; grants: ExpertCoverage[] };

export function reaches(reach: Reach, thread: { orgId: string; specialistId: string }): boolean {
  switch (reach.kind) {
    case 'platform_wide':
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
    case 'platform_wide':
      // The one place a Reach drops the org condition: an org-wide role reads every org.
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
