import { eq } from 'drizzle-orm';
import type { Db } from '../../platform/db/database.js';
import { orgs } from './orgs.tables.js';

/** The org was created and activated at `since` (the demo org's past). */
export async function backdateOrgActivation(db: Db, orgId: string, since: Date): Promise<void> {
  await db.update(orgs).set({ activatedAt: since, createdAt: since }).where(eq(orgs.id, orgId));
}
