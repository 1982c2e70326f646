import type { Db } from '../../platform/db/database.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';
import { llmRuns } from './agent.tables.js';
import { costMicroUsd, priceFor } from './pricing.js';

export interface DatedLlmRun {
  osaId: string;
  conversationId: string;
  messageId: string;
  purpose: string;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  createdAt: Date;
}

/** A successful model call of the past (the demo org's history) in the org of the scope, priced as a live one would be. */
export async function insertDatedLlmRun(db: Db, scope: OrgScope, run: DatedLlmRun): Promise<void> {
  await db.insert(llmRuns).values({ ...run, orgId: scope.orgId, costMicroUsd: costMicroUsd(priceFor(run.provider, run.model), run), outcome: 'ok' });
}
