import { Inject, Injectable } from '@nestjs/common';
import CircuitBreaker from 'opossum';
import { CHANNEL_NAMES, type ChannelName } from '../../contracts/channels.js';
import { systemNow } from '../../platform/clock/clock.js';
import { channelsConfig, type ChannelsConfig } from './channels.config.js';
import { DbService } from '../../platform/db/db.service.js';
import { MailService } from '../../platform/mail/mail.service.js';
import { logger } from '../../platform/observability/logger.js';
import { QueueService } from '../../platform/queue/queue.service.js';
import { jobScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { ConversationsService, type ConversationRow, type MessageRow, type OutboundPort } from '../conversations/index.js';
import { AssignmentsService } from '../specialists/index.js';
import { ChannelMetrics } from './channel-metrics.js';
import { ChannelsRepository } from './channels.repository.js';
import type { OutboundRow } from './channels.tables.js';
import { HeldMailService } from './held-mail.service.js';
import { IntegrationsService } from './integrations.service.js';
import { MESSAGING_A_MAX_CHARS, TokenCache, cutText, createSenders, emailMessageId, type OutboundSend, type Sender } from './outbound.senders.js';
import './channels.jobs.js';

/** spec 8 (chat-a, and every channel): 4 attempts, waiting 1, 5 and 10 minutes between them. */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 10 * 60_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
const SEND_LEASE_MS = 60_000;

export type BreakerState = 'closed' | 'open' | 'half_open';

/**
 * The one outbound dispatcher: replies to channel conversations are written to the outbox in the
 * transaction that stores them (one row per message and channel: sent once per channel, spec
 * 6.1.5), then sent by a job; a claimed row is sent by one worker at a time, and a periodic sweep
 * picks up what a crash or a lost job left. Each channel's sender sits behind a circuit breaker.
 */
@Injectable()
export class OutboundService implements OutboundPort {
  private readonly breakers = new Map<ChannelName, CircuitBreaker<[OutboundSend], { externalId: string | null }>>();
  private readonly connectorTokens: TokenCache;
  private readonly breakerResetMs: number;

  constructor(
    private readonly repo: ChannelsRepository,
    private readonly integrations: IntegrationsService,
    private readonly assignments: AssignmentsService,
    private readonly queue: QueueService,
    private readonly dbService: DbService,
    mail: MailService,
    @Inject(channelsConfig.token) config: ChannelsConfig,
    private readonly metrics: ChannelMetrics,
    private readonly heldMail: HeldMailService,
    private readonly conversations: ConversationsService,
  ) {
    this.breakerResetMs = config.apis.breakerResetMs;
    const senderConfig = { ...config.apis, messagingAAuthToken: config.inbound.messagingAAuthToken, requestTimeoutMs: 10_000 };
    this.connectorTokens = new TokenCache(senderConfig);
    const senders = createSenders(senderConfig, mail, this.connectorTokens);
    for (const channel of CHANNEL_NAMES) this.breakers.set(channel, this.breakerFor(channel, senders[channel], config.apis.breakerResetMs));
    // The breakers exist from here on: the metrics read them at each scrape.
    metrics.watchBreakers((channel) => this.breakerState(channel));
  }

  /**
   * The OutboundPort of the conversations module: inside the transaction storing the reply. A
   * Specialist reply goes to the target of the client message it answers; a follow-up to the
   * target of the conversation's latest client message.
   */
  async enqueue(conversation: ConversationRow, message: MessageRow, answered?: MessageRow): Promise<void> {
    const channel = conversation.channel;
    if (channel === 'web') return;
    const target = await this.targetOf(conversation, answered);
    if (!target) return;
    let content = message.content;
    if (channel === 'messaging-a') content = cutText(content, MESSAGING_A_MAX_CHARS);
    // Spec 3.3: a suspended or archived mailbox sends nothing; the reply is held, not lost.
    const held = channel === 'email' ? await this.mailboxStopped(conversation) : false;
    const scope = jobScope(conversation);
    const row = await this.repo.insertOutbound(scope, {
      conversationId: conversation.id,
      messageId: message.id,
      channel,
      target,
      content,
      status: held ? 'held' : 'pending',
      lastError: held ? 'mailbox suspended' : null,
    });
    if (!row) return;
    // The Message-ID this mail will carry is a key of its conversation: a reply naming only it threads back.
    if (channel === 'email') await this.repo.insertThread(scope, { channel, threadKey: emailMessageId(row.id, target.from), conversationId: conversation.id });
    if (!held) this.dbService.afterCommit(() => this.queue.send('channels.outbound', { orgId: row.orgId, outboundId: row.id }, { singletonKey: row.id }));
  }

  private async targetOf(conversation: ConversationRow, answered: MessageRow | undefined): Promise<Record<string, unknown> | undefined> {
    const { id } = conversation;
    const scope = jobScope(conversation);
    const own = answered?.idempotencyKey ? await this.repo.replyTargetOf(scope, id, answered.idempotencyKey) : undefined;
    const target = own ?? (await this.repo.latestReplyTarget(scope, id)) ?? (await this.repo.threadOfConversation(scope, id))?.replyTarget;
    return target && Object.keys(target).length > 0 ? target : undefined;
  }

  /** The enterprise-chat connector token replies carry (also what its attachments on the serviceUrl need). */
  connectorToken(): Promise<string> {
    return this.connectorTokens.get();
  }

  /** Sends one outbox row of the org if it is due and nobody else holds it. */
  async dispatch(scope: OrgScope, outboundId: string): Promise<void> {
    const row = await this.repo.claimOutbound(scope, outboundId, SEND_LEASE_MS);
    if (!row) return;
    try {
      if (row.channel === 'email' && (await this.heldMail.holdsBack(row))) {
        await this.repo.updateOutbound(scope, row.id, { status: 'held', claimedUntil: null, lastError: 'mailbox suspended' });
        return;
      }
      const integration = row.channel === 'email' ? undefined : await this.repo.findIntegrationByChannel(scope, row.channel);
      const secrets = integration ? this.integrations.secretsOf(integration) : {};
      const result = await this.breakers.get(row.channel)!.fire({ outboundId: row.id, content: row.content, target: row.target, secrets });
      await this.repo.updateOutbound(scope, row.id, { status: 'sent', sentAt: systemNow(), claimedUntil: null, externalId: result.externalId, lastError: null });
      this.metrics.sent(row.channel, 'sent');
    } catch (err) {
      // The open breaker refused the call: nothing reached the vendor, so it is no attempt (spec 8
      // counts attempts at the vendor). The row waits until the breaker lets a trial through.
      if ((err as { code?: string }).code === 'EOPENBREAKER') {
        await this.repo.updateOutbound(scope, row.id, { status: 'pending', attempts: row.attempts - 1, claimedUntil: null, nextAttemptAt: new Date(systemNow().getTime() + this.breakerResetMs) });
        this.metrics.sent(row.channel, 'deferred');
        return;
      }
      const message = err instanceof Error ? err.message : String(err);
      const last = row.attempts >= MAX_ATTEMPTS;
      const delay = RETRY_DELAYS_MS[Math.min(row.attempts - 1, RETRY_DELAYS_MS.length - 1)]!;
      logger.warn({ outboundId: row.id, channel: row.channel, attempt: row.attempts, err: message }, last ? 'outbound reply failed for good' : 'outbound reply failed; will retry');
      const failure = { claimedUntil: null, lastError: message.slice(0, 1000), nextAttemptAt: new Date(systemNow().getTime() + delay) };
      if (last) await this.failForGood(scope, row, failure);
      else await this.repo.updateOutbound(scope, row.id, { status: 'pending', ...failure });
      this.metrics.sent(row.channel, last ? 'failed' : 'retried');
    }
  }

  /**
   * The last attempt failed: the row is failed, and in the same transaction the conversation
   * records a genuine delivery failure (its thread and the Expert attention list, spec 4.4).
   */
  private async failForGood(scope: OrgScope, row: OutboundRow, failure: { claimedUntil: null; lastError: string; nextAttemptAt: Date }): Promise<void> {
    try {
      await this.dbService.transaction(async () => {
        await this.repo.updateOutbound(scope, row.id, { status: 'failed', ...failure });
        await this.conversations.recordDeliveryFailure({
          orgId: row.orgId,
          conversationId: row.conversationId,
          deliveryKey: row.id,
          channel: row.channel,
          attempts: row.attempts,
          error: failure.lastError,
        });
      });
    } catch (err) {
      // Left claimed, the row would be sent a fifth time once its lease ends: it is failed anyway
      // (the channel status shows it); only the record in the conversation is missing.
      logger.error({ err, outboundId: row.id, conversationId: row.conversationId }, 'recording a delivery failure failed');
      await this.repo.updateOutbound(scope, row.id, { status: 'failed', ...failure });
    }
  }

  /** Due rows a lost job or a crash left behind (the periodic sweep). */
  async dispatchDue(limit = 50): Promise<number> {
    const due = await this.repo.unscopedDueOutbound(limit);
    for (const row of due) await this.dispatch(jobScope(row), row.id);
    return due.length;
  }

  breakerState(channel: ChannelName): BreakerState {
    const breaker = this.breakers.get(channel)!;
    return breaker.opened ? 'open' : breaker.halfOpen ? 'half_open' : 'closed';
  }

  private breakerFor(channel: ChannelName, sender: Sender, resetTimeout: number) {
    const breaker = new CircuitBreaker(sender, { timeout: 15_000, errorThresholdPercentage: 50, volumeThreshold: 3, resetTimeout, name: channel });
    breaker.on('open', () => logger.warn({ channel }, 'outbound circuit opened'));
    breaker.on('close', () => logger.info({ channel }, 'outbound circuit closed'));
    return breaker;
  }

  private async mailboxStopped(conversation: ConversationRow): Promise<boolean> {
    const osa = await this.assignments.get(jobScope(conversation), conversation.assignmentId).catch(() => undefined);
    return !osa || Boolean(osa.mailboxSuspendedAt || osa.mailboxArchivedAt);
  }
}
