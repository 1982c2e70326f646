import { Injectable } from '@nestjs/common';
import { and, asc, desc, eq, gte, lt, sql } from 'drizzle-orm';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { llmRuns, type LlmRunRow } from './agent.tables.js';
import { ledgerEntriesJson, ledgerRowsInsert, type LedgerEntry } from './llm-runs.sql.js';

export type NewLlmRun = typeof llmRuns.$inferInsert;

export interface CostTotals {
  costMicroUsd: number;
  inputTokens: number;
  outputTokens: number;
  calls: number;
  errors: number;
}

const totals = {
  costMicroUsd: sql<number>`coalesce(sum(${llmRuns.costMicroUsd}), 0)::bigint`.mapWith(Number),
  inputTokens: sql<number>`coalesce(sum(${llmRuns.inputTokens}), 0)::bigint`.mapWith(Number),
  outputTokens: sql<number>`coalesce(sum(${llmRuns.outputTokens}), 0)::bigint`.mapWith(Number),
  calls: sql<number>`count(*)::int`.mapWith(Number),
  errors: sql<number>`count(*) filter (where ${llmRuns.outcome} = 'error')::int`.mapWith(Number),
};

/**
 * The LLM cost ledger (spec 2.9). Rows are written on the root connection: a model call happened
 * whatever becomes of the caller's transaction.
 */
@Injectable()
export class LlmRunsRepository {
  /** A turn's rows in one statement, always on the root connection (prepared). */
  private readonly insertRows: PreparedStatement<Array<{ id: string }>, { orgId: string; entries: string }>;

  constructor(private readonly dbService: DbService) {
    const p = sql.placeholder;
    this.insertRows = dbService.prepared(
      'llm_runs_insert',
      (db) => {
        const written = db.$with('written', { id: sql<string>`id`.as('id') }).as(ledgerRowsInsert(p('orgId'), p('entries')));
        return db.with(written).select().from(written);
      },
      { root: true },
    );
  }

  /** One row per model call, in call order, in one statement: a model call happened whatever becomes of the caller's transaction. */
  async insertEntries(scope: OrgScope, entries: readonly LedgerEntry[]): Promise<void> {
    if (entries.length > 0) await this.insertRows({ orgId: scope.orgId, entries: ledgerEntriesJson(entries) });
  }

  /** One row, read back (fixtures). */
  async insert(scope: OrgScope, values: Omit<NewLlmRun, 'id' | 'createdAt' | 'orgId'>): Promise<LlmRunRow> {
    const [row] = await this.dbService.root
      .insert(llmRuns)
      .values({ ...values, orgId: scope.orgId })
      .returning();
    return row!;
  }

  /** Per org, calls made in [from, to): platform wide (the ops cost panels). */
  async unscopedCostsByOrg(from: Date, to: Date): Promise<Array<CostTotals & { orgId: string }>> {
    return this.dbService.db
      .select({ orgId: llmRuns.orgId, ...totals })
      .from(llmRuns)
      .where(and(gte(llmRuns.createdAt, from), lt(llmRuns.createdAt, to)))
      .groupBy(llmRuns.orgId)
      .orderBy(desc(totals.costMicroUsd));
  }

  /** Per OSA of one org, calls made in [from, to). */
  async costsByOsa(scope: OrgScope, from: Date, to: Date): Promise<Array<CostTotals & { osaId: string | null }>> {
    return this.dbService.db
      .select({ osaId: llmRuns.osaId, ...totals })
      .from(llmRuns)
      .where(and(inOrg(llmRuns.orgId, scope), gte(llmRuns.createdAt, from), lt(llmRuns.createdAt, to)))
      .groupBy(llmRuns.osaId)
      .orderBy(desc(totals.costMicroUsd));
  }

  /** Totals of calls in [from, to) per org, OSA and purpose (the billing module's daily rollup). */
  async unscopedTotalsByOrgOsaPurpose(from: Date, to: Date): Promise<Array<CostTotals & { orgId: string; osaId: string | null; purpose: string }>> {
    return this.dbService.db
      .select({ orgId: llmRuns.orgId, osaId: llmRuns.osaId, purpose: llmRuns.purpose, ...totals })
      .from(llmRuns)
      .where(and(gte(llmRuns.createdAt, from), lt(llmRuns.createdAt, to)))
      .groupBy(llmRuns.orgId, llmRuns.osaId, llmRuns.purpose);
  }

  /** When the oldest call in the ledger of every org was made (null for an empty ledger): the rollup's start. */
  async unscopedFirstCallAt(): Promise<Date | null> {
    const [row] = await this.dbService.db.select({ at: llmRuns.createdAt }).from(llmRuns).orderBy(asc(llmRuns.createdAt)).limit(1);
    return row?.at ?? null;
  }

  /** The calls made for one message's turn, oldest first. */
  async forMessage(scope: OrgScope, messageId: string): Promise<LlmRunRow[]> {
    return this.dbService.db
      .select()
      .from(llmRuns)
      .where(and(inOrg(llmRuns.orgId, scope), eq(llmRuns.messageId, messageId)))
      .orderBy(asc(llmRuns.createdAt), asc(llmRuns.id));
  }
}
