import { sql, type Placeholder, type SQL } from 'drizzle-orm';
import { llmRuns } from './agent.tables.js';

/** One model call's ledger row as the caller gives it (the org is the statement's; the id and the time are the database's). */
export interface LedgerEntry {
  osaId: string | null;
  conversationId: string | null;
  messageId: string | null;
  purpose: string;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
  latencyMs: number;
  outcome: 'ok' | 'error';
  error: string | null;
}

/** Ledger entries as the `entries` parameter of `ledgerRowsInsert`: a JSON array, in call order. */
export function ledgerEntriesJson(entries: readonly LedgerEntry[]): string {
  return JSON.stringify(
    entries.map((e) => ({
      osa_id: e.osaId,
      conversation_id: e.conversationId,
      message_id: e.messageId,
      purpose: e.purpose,
      provider: e.provider,
      model: e.model,
      input_tokens: e.inputTokens,
      output_tokens: e.outputTokens,
      cost_micro_usd: e.costMicroUsd,
      latency_ms: e.latencyMs,
      outcome: e.outcome,
      error: e.error,
    })),
  );
}

/**
 * Writes ledger rows (`ledgerEntriesJson`) of one org, in the order given (`created_at` is each
 * row's `clock_timestamp()`), returning their ids. A part of a statement: the ledger's own insert,
 * and the reply's statement, which writes its turn's rows with the reply so that both commit
 * together. `orgId` is a placeholder of that statement, whose method takes the org's scope (allowed
 * in test/lint/tenant-scope.spec.ts).
 */
export function ledgerRowsInsert(orgId: string | Placeholder, entries: string | Placeholder): SQL {
  return sql`insert into ${llmRuns} (org_id, osa_id, conversation_id, message_id, purpose, provider, model, input_tokens, output_tokens, cost_micro_usd, latency_ms, outcome, error)
    select ${orgId}::uuid, r.osa_id, r.conversation_id, r.message_id, r.purpose, r.provider, r.model, r.input_tokens, r.output_tokens, r.cost_micro_usd, r.latency_ms, r.outcome, r.error
    from jsonb_to_recordset(${entries}::jsonb) as r(osa_id uuid, conversation_id uuid, message_id uuid, purpose text, provider text, model text, input_tokens integer, output_tokens integer, cost_micro_usd bigint, latency_ms integer, outcome text, error text)
    returning id`;
}
