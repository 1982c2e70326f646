import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { generateText, stepCountIs, streamText } from 'ai';
import { agentConfig, type AgentConfig } from './agent.config.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { logger } from '../../platform/observability/logger.js';
import { jobScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { ClientBriefsService } from '../client-briefs/index.js';
import { OrgsService } from '../orgs/index.js';
import { toModelMessages, type HistoryMessage } from './agent.attachments.js';
import { buildSystemPrompt } from './agent.prompt.js';
import { LlmRunsRepository, type CostTotals } from './llm-runs.repository.js';
import { ledgerEntriesJson, type LedgerEntry } from './llm-runs.sql.js';
import { meteredModel, type ModelCall } from './metered-model.js';
import { createConfiguredModel, type ConfiguredModel } from './model-provider.js';
import { costMicroUsd, priceFor, type ModelPrice } from './pricing.js';
import { CLIENT_BRIEF_TOOL } from './tool-registry.js';
import { AgentToolsService } from './tools.service.js';

export interface AgentTurnInput {
  orgId: string;
  /** The OSA; recorded as llm_runs.osa_id. */
  assignmentId: string;
  specialist: { id: string; name: string; persona: string | null };
  conversationId: string;
  /** The client message this turn answers; llm_runs.message_id. */
  turnMessageId: string;
  /**
   * Oldest first; the last entry is the client message being answered. A client message's files
   * become image or file parts where the provider takes them, else a text summary (agent.attachments.ts).
   */
  history: HistoryMessage[];
  /** Default 'chat-hermes'. */
  purpose?: string;
  /**
   * The caller writes a successful turn's ledger rows with its own statement (`result.ledger`),
   * so that they commit with the reply. Without it, and for a failed turn always, `runTurn` writes
   * them before it returns or throws.
   */
  deferLedger?: boolean;
  /** Streaming: called with each text delta as it arrives. */
  onTextDelta?: (delta: string) => void;
  abortSignal?: AbortSignal;
}

export interface AgentTurnResult {
  text: string;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
  /** With `deferLedger`: the turn's ledger rows, not written yet. */
  ledger?: PendingLedger;
}

/** A turn's ledger rows handed to its caller (`AgentTurnInput.deferLedger`). */
export interface PendingLedger {
  /** The rows as the `entries` parameter of `ledgerRowsInsert`, for the caller's statement. */
  readonly entries: string;
  /** Writes them on their own (root connection), when the caller's statement did not run; a failure is logged. */
  write(): Promise<void>;
}

/** A turn that produced no reply. Its model calls are already in the ledger; the caller may retry. */
export class AgentTurnError extends AppError {
  constructor(
    /** Why, for logs and the attention list (provider status and message, timeout, cancellation). */
    readonly reason: string,
    cause?: unknown,
  ) {
    super('service_unavailable', 'The Specialist could not answer right now', { cause });
    this.name = 'AgentTurnError';
  }
}

/** Model calls per turn: the first answer plus a few tool round trips. */
export const MAX_STEPS = 4;
export const DEFAULT_PURPOSE = 'chat-hermes';

/**
 * The Specialist agent: one turn is one answer to one client message, streamed. Every model call
 * (each tool step is one) becomes one `llm_runs` row with its cost from the price table. It never
 * retries (the caller does) and never writes conversation rows.
 */
@Injectable()
export class AgentService implements OnModuleInit {
  /** Set while the app starts (`onModuleInit`): only the configured provider's package is loaded. */
  private model?: ConfiguredModel;

  constructor(
    @Inject(agentConfig.token) private readonly config: AgentConfig,
    private readonly runs: LlmRunsRepository,
    private readonly tools: AgentToolsService,
    private readonly orgs: OrgsService,
    private readonly briefs: ClientBriefsService,
    private readonly dbService: DbService,
  ) {}

  /** Before the instance reports ready: the model's first call must not stall the requests of a new instance. */
  async onModuleInit(): Promise<void> {
    this.model = await createConfiguredModel(this.config.llm);
    await this.model.warm?.();
  }

  private get configured(): ConfiguredModel {
    if (!this.model) throw new Error('AgentService is used before the app started');
    return this.model;
  }

  /** The provider and model turns run on (`offline` unless LLM_PROVIDER says otherwise). */
  get modelInfo(): { provider: string; model: string } {
    return { provider: this.configured.provider, model: this.configured.modelId };
  }

  async runTurn(input: AgentTurnInput): Promise<AgentTurnResult> {
    // A model call takes seconds: holding a transaction (and on PGlite, the only connection) that long would stall everything.
    if (this.dbService.inTransaction) throw new Error('AgentService.runTurn must not be called inside a database transaction');
    const org = await this.orgs.forTurn(input.orgId);
    if (!org) throw AppError.notFound('Organization');
    const [briefs, offer] = await Promise.all([this.briefs.briefsOf(jobScope(input)), this.tools.offeredTools(org)]);
    const system = buildSystemPrompt({
      specialist: input.specialist,
      org,
      briefs,
      tools: offer.offered,
      briefTool: offer.offered.some((t) => t.name === CLIENT_BRIEF_TOOL) ? CLIENT_BRIEF_TOOL : undefined,
    });

    const { provider, modelId } = this.configured;
    const ledger = new TurnLedger(this.runs, priceFor(provider, modelId), jobScope(input), {
      osaId: input.assignmentId,
      conversationId: input.conversationId,
      messageId: input.turnMessageId,
      purpose: input.purpose ?? DEFAULT_PURPOSE,
      provider,
      model: modelId,
    });

    // The files' bytes are read here, at turn time, within the turn's byte limit.
    const messages = await toModelMessages(input.history, this.configured.accepts);
    const started = performance.now();
    const toolsUsed: string[] = [];
    let text = '';
    let failure: { reason: string; cause?: unknown } | undefined;
    const call = {
      model: meteredModel(this.configured.model, {
        timeoutMs: this.config.llm.timeoutMs,
        onCall: (modelCall) => ledger.record(modelCall),
      }),
      system,
      messages,
      tools: offer.tools,
      stopWhen: stepCountIs(MAX_STEPS),
      maxRetries: 0,
      abortSignal: input.abortSignal,
    };
    try {
      if (input.onTextDelta) {
        // Someone reads the reply as it is written: the model's stream, each delta passed on.
        const result = streamText({
          ...call,
          // Errors arrive as stream parts below and end up in the ledger and the thrown error, not on stderr.
          onError: () => undefined,
        });
        for await (const part of result.fullStream) {
          if (part.type === 'text-delta') {
            text += part.text;
            input.onTextDelta(part.text);
          } else if (part.type === 'error') {
            failure ??= { reason: ledger.lastError ?? describe(part.error), cause: part.error };
          } else if (part.type === 'tool-call') {
            toolsUsed.push(part.toolName);
          } else if (part.type === 'abort') {
            failure ??= { reason: ledger.lastError ?? CANCELLED };
          }
        }
      } else {
        // Nobody reads the deltas: the whole answer at once, without the stream's machinery (the
        // same model calls, steps and tools; the text of every step, as the stream's deltas add up).
        const result = await generateText(call);
        for (const step of result.steps) {
          text += step.text;
          toolsUsed.push(...step.toolCalls.map((toolCall) => toolCall.toolName));
        }
      }
    } catch (err) {
      failure ??= { reason: ledger.lastError ?? (input.abortSignal?.aborted ? CANCELLED : describe(err)), cause: err };
    }
    if (!failure && text.trim() === '') failure = { reason: 'the model gave no text' };
    // A failed turn's rows are written here whatever the caller asked: no reply will carry them.
    let pending: PendingLedger | undefined;
    if (!failure && input.deferLedger) pending = ledger.handOver();
    else await ledger.write();
    // Spec 8.1: agent delivery is observable by its latency, model and tool usage, and outcome.
    logger.info(
      {
        orgId: org.id,
        conversationId: input.conversationId,
        messageId: input.turnMessageId,
        provider,
        model: modelId,
        calls: ledger.calls,
        toolsUsed,
        latencyMs: Math.round(performance.now() - started),
        outcome: failure ? 'error' : 'ok',
        reason: failure?.reason,
      },
      'agent turn',
    );
    if (failure) throw new AgentTurnError(failure.reason, failure.cause);
    return { text, provider, model: modelId, ...ledger.totals, ledger: pending };
  }

  /** Ledger totals per org for calls in [from, to) (the billing cost panels). */
  costsByOrg(from: Date, to: Date): Promise<Array<CostTotals & { orgId: string }>> {
    return this.runs.unscopedCostsByOrg(from, to);
  }

  /** Ledger totals per org, OSA and purpose for calls in [from, to) (the billing module rolls days up with it). */
  ledgerTotals(from: Date, to: Date): Promise<Array<CostTotals & { orgId: string; osaId: string | null; purpose: string }>> {
    return this.runs.unscopedTotalsByOrgOsaPurpose(from, to);
  }

  /** When the ledger's oldest call was made, or null. */
  firstLedgerCallAt(): Promise<Date | null> {
    return this.runs.unscopedFirstCallAt();
  }

  /** Ledger totals per OSA of one org for calls in [from, to). */
  costsByOsa(scope: OrgScope, from: Date, to: Date): Promise<Array<CostTotals & { osaId: string | null }>> {
    return this.runs.costsByOsa(scope, from, to);
  }
}

/** The ledger rows of one turn: one per model call, in call order, written together once the turn ends. */
class TurnLedger {
  readonly totals = { inputTokens: 0, outputTokens: 0, costMicroUsd: 0 };
  calls = 0;
  /** The reason of the last failed call: the turn's reason when it fails. */
  lastError: string | undefined;
  private readonly entries: LedgerEntry[] = [];
  /** Written or handed over: a call that settles later still (a cancelled stream) is written on its own. */
  private closed = false;

  constructor(
    private readonly runs: LlmRunsRepository,
    private readonly price: ModelPrice,
    private readonly scope: OrgScope,
    private readonly turn: Pick<LedgerEntry, 'osaId' | 'conversationId' | 'messageId' | 'purpose' | 'provider' | 'model'>,
  ) {}

  record(call: ModelCall): void {
    const cost = costMicroUsd(this.price, call);
    this.calls++;
    if (!call.ok) this.lastError = call.error;
    this.totals.inputTokens += call.inputTokens;
    this.totals.outputTokens += call.outputTokens;
    this.totals.costMicroUsd += cost;
    const entry: LedgerEntry = {
      ...this.turn,
      inputTokens: call.inputTokens,
      outputTokens: call.outputTokens,
      costMicroUsd: cost,
      latencyMs: call.latencyMs,
      outcome: call.ok ? 'ok' : 'error',
      error: call.error ?? null,
    };
    if (this.closed) void this.insert([entry]);
    else this.entries.push(entry);
  }

  /** Writes the rows in one statement. */
  write(): Promise<void> {
    this.closed = true;
    return this.insert(this.entries);
  }

  handOver(): PendingLedger {
    this.closed = true;
    const entries = [...this.entries];
    return { entries: ledgerEntriesJson(entries), write: () => this.insert(entries) };
  }

  /** A failed write is logged, never thrown: the turn's outcome stands. */
  private async insert(entries: LedgerEntry[]): Promise<void> {
    await this.runs.insertEntries(this.scope, entries).catch((err: unknown) => logger.error({ err, orgId: this.scope.orgId, messageId: this.turn.messageId }, 'llm_runs write failed'));
  }
}

const CANCELLED = 'cancelled by the caller';

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
