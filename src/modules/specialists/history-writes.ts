import { inArray, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/database.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { orgSpecialistAssignments, osaRateHistory } from './assignments.tables.js';
import { specialistRateHistory, specialists } from './specialists.tables.js';

/**
 * The org's assignments and their rate versions date from `since`, and so (at the latest) do their
 * Specialists and the Specialists' rate versions: invoices of the months since have their lines.
 */
export async function backdateOrgAssignments(db: Db, scope: OrgScope, since: Date): Promise<void> {
  const osaRows = await db.update(orgSpecialistAssignments).set({ createdAt: since }).where(inOrg(orgSpecialistAssignments.orgId, scope)).returning();
  await db.update(osaRateHistory).set({ createdAt: since }).where(inOrg(osaRateHistory.orgId, scope));
  const specialistIds = [...new Set(osaRows.map((r) => r.specialistId))];
  if (specialistIds.length === 0) return;
  await db
    .update(specialists)
    .set({ createdAt: sql`least(${specialists.createdAt}, ${since})` })
    .where(inArray(specialists.id, specialistIds));
  await db
    .update(specialistRateHistory)
    .set({ createdAt: sql`least(${specialistRateHistory.createdAt}, ${since})` })
    .where(inArray(specialistRateHistory.specialistId, specialistIds));
}
