import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { conversationsConfig, type ConversationsConfig } from './conversations.config.js';
import { DbService } from '../../platform/db/db.service.js';
import { jobScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { Clock, systemNow } from '../../platform/clock/clock.js';
import { OrgAccessGate } from '../../platform/auth/org-access-gate.js';
import { logger } from '../../platform/observability/logger.js';
import { Ports } from '../../platform/ports/ports.js';
import { AgentService, AgentTurnError, type AgentTurnResult } from '../agent/index.js';
import { SpecialistsService } from '../specialists/index.js';
import { ArtifactsService } from './artifacts.service.js';
import { ConversationEvents } from './conversations.events.js';
import { ConversationsRepository, type HistoryEntry } from './conversations.repository.js';
import type { ConversationRow, MessageRow, TurnThread } from './conversations.tables.js';
import { ExpertQueueService } from './expert-queue.service.js';
import { OUTBOUND_PORT, type OutboundPort } from './outbound.port.js';

/** Attempts of one turn before it counts as a genuine failure, and the pauses between them. */
export const TURN_ATTEMPTS = 3;
const BACKOFF_MS = [300, 1200];
const HISTORY_MESSAGES = 20;

export interface TurnObserver {
  /** Each text delta of the reply as the model produces it. */
  onDelta?: (text: string) => void;
  /** An attempt failed after some deltas: the deltas so far are void. */
  onRetry?: () => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface TurnOptions {
  /** The turn was written claimed with its message, by the caller that runs it now. */
  claimed?: boolean;
  /**
   * The request that stored the message found the org's access gate open (its guard, moments
   * before: `Principal.openOrgIds`), so the turn does not read it again. Every other turn (a
   * channel's, the sweeper's, a retried one) reads it.
   */
  gateOpen?: boolean;
  /**
   * The thread's messages before this one (the newest `historyLimit`, oldest first), read by the
   * statement that stored it; every other turn reads them when it runs.
   */
  history?: HistoryEntry[];
}

/**
 * One agent turn per client message, keyed by that message: claimed in the database before the
 * model is called, the reply stored with a unique reference to the message. A retried job, a
 * second instance or a crash mid-turn never produce two replies.
 */
@Injectable()
export class TurnsService implements OnModuleInit {
  private outbound!: OutboundPort;

  constructor(
    private readonly repo: ConversationsRepository,
    private readonly agent: AgentService,
    private readonly specialists: SpecialistsService,
    private readonly events: ConversationEvents,
    private readonly queue: ExpertQueueService,
    private readonly dbService: DbService,
    private readonly clock: Clock,
    private readonly accessGate: OrgAccessGate,
    private readonly artifacts: ArtifactsService,
    @Inject(conversationsConfig.token) private readonly config: ConversationsConfig,
    private readonly ports: Ports,
  ) {}

  /** The channels module says where channel conversations' replies go. */
  onModuleInit(): void {
    this.outbound = this.ports.one(OUTBOUND_PORT);
  }

  /**
   * Runs the turn of a client message unless it ran or runs elsewhere. Returns the reply (new or
   * already stored), or null when the turn failed or another worker holds it.
   */
  async run(conversation: TurnThread, message: MessageRow, observer: TurnObserver = {}, options: TurnOptions = {}): Promise<MessageRow | null> {
    // A turn is a job on its conversation, whoever starts it (the request or the sweeper): its org is the row's.
    const scope = jobScope(conversation);
    if (!options.claimed) {
      // The lease (TURN_LEASE_MS) outlives the longest model call; past it, a sweeper may take the turn over.
      const claim = await this.repo.claimTurn(scope, message.id, this.config.recovery.turnLeaseMs);
      if (!claim) return (await this.repo.findReply(scope, conversation.id, message.id)) ?? null;
      // Only a claimed turn stores a reply (deliver): on the turn's first claim there is none yet.
      const existing = claim.attempts > 1 ? await this.repo.findReply(scope, conversation.id, message.id) : undefined;
      if (existing) {
        await this.repo.finishTurn(scope, message.id, 'done');
        return existing;
      }
      return this.take(scope, conversation, message, observer, false);
    }
    // Written claimed with the message, for `firstClaimMs` (a request that dies leaves it to the
    // sweeper that soon): a turn still running at half of it takes the full lease (TURN_LEASE_MS).
    const extend = setTimeout(() => {
      this.repo.extendClaim(scope, message.id, this.config.recovery.turnLeaseMs).catch((err: unknown) => logger.warn({ err, messageId: message.id }, 'turn claim not extended'));
    }, this.firstClaimMs / 2).unref();
    try {
      return await this.take(scope, conversation, message, observer, options.gateOpen === true, options.history);
    } finally {
      clearTimeout(extend);
    }
  }

  /**
   * How long the claim of a turn written with its message lasts at first: as long as a turn may
   * stay queued before the sweeper runs it (STRANDED_AFTER_MS), so a request that dies right after
   * storing its message is made up for as soon as before.
   */
  get firstClaimMs(): number {
    return this.config.recovery.strandedAfterMs;
  }

  /** How many of the thread's earlier messages a turn is shown with its own (HISTORY_MESSAGES in all). */
  get historyLimit(): number {
    return HISTORY_MESSAGES - 1;
  }

  /**
   * The claimed turn: the gate, the history, the model with its retries, then the reply or the
   * failure. `gateOpen`: the request that stored the message found the org's gate open moments ago;
   * `earlier`: the thread before the message, as the statement that stored it read it.
   */
  private async take(scope: OrgScope, conversation: TurnThread, message: MessageRow, observer: TurnObserver, gateOpen: boolean, earlier?: HistoryEntry[]): Promise<MessageRow | null> {
    // Spec 3.6: while the org's access gate is closed the agent takes no turns.
    if (!gateOpen && !(await this.accessGate.isOpen(conversation.orgId))) {
      await this.repo.finishTurn(scope, message.id, 'failed', 'org_suspended');
      return null;
    }
    const specialist = await this.specialists.forTurn(conversation.specialistId);
    // Client messages' resource blocks become their files (read by the agent, at turn time).
    const before = earlier ?? (await this.repo.historyBefore(scope, conversation.id, message.id, this.historyLimit));
    const history = await this.artifacts.history(conversation, [...before, message]);
    let lastError: unknown;
    let answer: AgentTurnResult | undefined;
    for (let attempt = 1; attempt <= TURN_ATTEMPTS && answer === undefined; attempt++) {
      let streamed = false;
      try {
        const result = await this.agent.runTurn({
          orgId: conversation.orgId,
          assignmentId: conversation.assignmentId,
          specialist: { id: conversation.specialistId, name: specialist?.name ?? 'Specialist', persona: specialist?.persona ?? null },
          conversationId: conversation.id,
          turnMessageId: message.id,
          history,
          // A reply stored by one statement carries its turn's ledger rows (deliver).
          deferLedger: this.repliesInOneStatement(conversation),
          onTextDelta: observer.onDelta
            ? (delta) => {
                streamed = true;
                observer.onDelta!(delta);
              }
            : undefined,
        });
        answer = result;
      } catch (err) {
        // Only the model failing is an agent failure. Anything else (the database went away) leaves
        // the turn claimed: the sweeper runs it again once its lease ends.
        if (!(err instanceof AgentTurnError)) throw err;
        lastError = err;
        logger.warn({ err: (err as Error).message, conversationId: conversation.id, messageId: message.id, attempt }, 'agent turn attempt failed');
        if (streamed) observer.onRetry?.();
        if (attempt < TURN_ATTEMPTS) await sleep(BACKOFF_MS[attempt - 1] ?? 1000);
      }
    }
    if (answer !== undefined) return this.deliver(scope, conversation, message, answer);
    await this.fail(scope, conversation.id, message, lastError);
    return null;
  }

  /**
   * Inside the storing transaction: a reply to a channel conversation is queued for that channel,
   * addressed to the client message it answers (`answered`), else to the thread's latest message.
   */
  async sendOut(conversation: ConversationRow, message: MessageRow, answered?: MessageRow): Promise<void> {
    if (conversation.channel !== 'web') await this.outbound.enqueue(conversation, message, answered);
  }

  /** How often the sweeper looks for stranded turns: twice per STRANDED_AFTER_MS. */
  get strandedSweepMs(): number {
    return this.config.recovery.strandedAfterMs / 2;
  }

  /** Runs turns whose request died before or during the turn (the periodic sweeper). */
  async runStranded(limit = 20): Promise<number> {
    // Still queued STRANDED_AFTER_MS after its message was stored: the request died before the turn.
    const stranded = await this.repo.unscopedStrandedTurns(new Date(systemNow().getTime() - this.config.recovery.strandedAfterMs), limit);
    for (const turn of stranded) {
      const scope = jobScope(turn);
      try {
        const [conversation] = await this.repo.conversationsByIds([scope], [turn.conversationId]);
        const message = conversation && (await this.repo.findMessage(scope, conversation.id, turn.messageId));
        if (!conversation || !message) continue;
        await this.run(conversation, message);
      } catch (err) {
        // One turn that cannot run now does not hold up the others; it is tried again next time.
        logger.warn({ err: (err as Error).message, messageId: turn.messageId }, 'stranded turn not run');
      }
    }
    return stranded.length;
  }

  /**
   * Stores the reply once; the delivery event follows the commit (spec 6.1.5: exactly once). The
   * reply takes its org and Specialist from the conversation the turn started with (neither ever
   * changes), so no locking read comes first: the update of the row locks it, as such a read would.
   * A web thread's reply is one statement (it has no outbox row to write with it), which writes
   * the turn's ledger rows too; a channel thread's is a transaction that queues it for its channel
   * (its ledger rows were written by the agent).
   */
  private async deliver(scope: OrgScope, conversation: TurnThread, message: MessageRow, answer: AgentTurnResult): Promise<MessageRow> {
    const conversationId = conversation.id;
    const text = answer.text;
    if (answer.ledger) {
      const ledger = answer.ledger;
      const reply = await this.repo
        .deliverReply(scope, { conversationId, specialistId: conversation.specialistId, messageId: message.id, content: text, ledger: ledger.entries })
        .catch(async (err: unknown) => {
          // Not stored: the turn stays claimed and runs again, but these model calls were made.
          await ledger.write();
          throw err;
        });
      if (!reply) return (await this.repo.findReply(scope, conversationId, message.id))!;
      // After its commit, as afterCommit would: a failed push is logged, the reply stands.
      await this.events.message('agent_message_sent', conversation, reply).catch((err: unknown) => logger.error({ err, conversationId }, 'after-commit hook failed'));
      return reply;
    }
    return this.dbService.transaction(async () => {
      const reply = await this.repo.insertMessage(scope, {
        conversationId,
        role: 'specialist',
        senderId: conversation.specialistId,
        content: text,
        replyToMessageId: message.id,
      });
      await this.repo.finishTurn(scope, message.id, 'done');
      if (!reply) return (await this.repo.findReply(scope, conversationId, message.id))!;
      // A Specialist reply changes no status (spec 3.1); the agent handled the turn.
      const updated = await this.repo.update(scope, conversationId, { autoResponded: true, lastMessageAt: reply.createdAt });
      await this.sendOut(updated, reply, message);
      this.dbService.afterCommit(() => this.events.message('agent_message_sent', updated, reply));
      return reply;
    });
  }

  /** A web thread's reply is stored by one statement outside any transaction (deliver). */
  private repliesInOneStatement(conversation: TurnThread): boolean {
    return conversation.channel === 'web' && !this.dbService.inTransaction;
  }

  /** A turn that failed after its retries: an attention-list item and the covering Experts told. */
  private async fail(scope: OrgScope, conversationId: string, message: MessageRow, error: unknown): Promise<void> {
    const text = error instanceof Error ? error.message : String(error);
    await this.dbService.transaction(async () => {
      const conversation = await this.repo.lock(scope, conversationId);
      if (!conversation) return; // deleted with its org, and its turn with it
      await this.repo.finishTurn(scope, message.id, 'failed', text.slice(0, 2000));
      await this.queue.raise(scope, conversation, 'agent_failure', `The Specialist could not answer after ${TURN_ATTEMPTS} attempts: ${text.slice(0, 500)}`, this.clock.now());
    });
  }
}
