import { sql, type Column, type Placeholder, type SQL } from 'drizzle-orm';
import { expertGrants } from './experts.tables.js';

/**
 * The rows of another query an Expert's grants cover, as a condition on its org and Specialist
 * columns, read in the same statement: an org-wide grant covers every Specialist of its org, a
 * Specialist grant the Specialists it names (the rule of `ExpertsService.coverageOf`'s readers).
 * `expertId` may be a placeholder of a prepared statement. A condition, not a query of its own: the
 * Expert's reach that scopes the outer query (allowed in test/lint/tenant-scope.spec.ts).
 */
export function grantsCover(expertId: string | Placeholder, cols: { orgId: Column; specialistId: Column }): SQL {
  return sql`exists (select 1 from ${expertGrants} where ${expertGrants.expertId} = ${expertId}::uuid and ${expertGrants.orgId} = ${cols.orgId} and (${expertGrants.scope} = 'org' or ${cols.specialistId} = any(${expertGrants.specialistIds})))`;
}
