export { AgentModule } from './agent.module.js';
export { AgentService, AgentTurnError, DEFAULT_PURPOSE, type AgentTurnInput, type AgentTurnResult, type PendingLedger } from './agent.service.js';
export { ledgerRowsInsert } from './llm-runs.sql.js';
export type { CostTotals } from './llm-runs.repository.js';
export type { LlmRunRow } from './agent.tables.js';
export type { HistoryMessage, TurnAttachment } from './agent.attachments.js';
export { agentConfig, type AgentConfig } from './agent.config.js';
export { insertDatedLlmRun, type DatedLlmRun } from './history-writes.js';
