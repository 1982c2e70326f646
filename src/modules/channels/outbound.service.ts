import { Inject, Injectable } from '@nestjs/common';
import CircuitBreaker from 'opossum';
import { CHANNEL_NAMES, type ChannelName } from '../../contracts/channels.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { DbService } from '../../platform/db/db.service.js';
import { MailService } from '../../platform/mail/mail.service.js';
import { logger } from '../../platform/observability/logger.js';
import { QueueService } from '../../platform/queue/queue.service.js';
import type { ConversationRow, MessageRow, OutboundPort } from '../conversations/index.js';
import { AssignmentsService } from '../specialists/index.js';
import { ChannelMetrics } from './channel-metrics.js';
import { ChannelsRepository } from './channels.repository.js';
import type { OutboundRow } from './channels.tables.js';
import { IntegrationsService } from './integrations.service.js';
import { MESSAGING_A_MAX_CHARS, TokenCache, createSenders, emailMessageId, type OutboundSend, type Sender } from './outbound.senders.js';
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

  constructor(
    private readonly repo: ChannelsRepository,
    private readonly integrations: IntegrationsService,
    private readonly assignments: AssignmentsService,
    private readonly queue: QueueService,
    private readonly dbService: DbService,
    mail: MailService,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly metrics: ChannelMetrics,
  ) {
    const senderConfig = { ...config.channelApis, messagingAAuthToken: config.channels.messagingAAuthToken, requestTimeoutMs: 10_000 };
    this.connectorTokens = new TokenCache(senderConfig);
    const senders = createSenders(senderConfig, mail, this.connectorTokens);
    for (const channel of CHANNEL_NAMES) this.breakers.set(channel, this.breakerFor(channel, senders[channel], config.channelApis.breakerResetMs));
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
    if (channel === 'messaging-a') content = content.slice(0, MESSAGING_A_MAX_CHARS);
    // Spec 3.3: a suspended or archived mailbox sends nothing; the reply is held, not lost.
    const held = channel === 'email' ? await this.mailboxStopped(conversation) : false;
    const row = await this.repo.insertOutbound({
      orgId: conversation.orgId,
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
    if (channel === 'email') await this.repo.insertThread({ orgId: conversation.orgId, channel, threadKey: emailMessageId(row.id, target.from), conversationId: conversation.id });
    if (!held) this.dbService.afterCommit(() => this.queue.send('channels.outbound', { outboundId: row.id }, { singletonKey: row.id }));
  }

  private async targetOf(conversation: ConversationRow, answered: MessageRow | undefined): Promise<Record<string, unknown> | undefined> {
    const { orgId, id } = conversation;
    const own = answered?.idempotencyKey ? await this.repo.replyTargetOf(orgId, id, answered.idempotencyKey) : undefined;
    const target = own ?? (await this.repo.latestReplyTarget(orgId, id)) ?? (await this.repo.threadOfConversation(id))?.replyTarget;
    return target && Object.keys(target).length > 0 ? target : undefined;
  }

  /** The enterprise-chat connector token replies carry (also what its attachments on the serviceUrl need). */
  connectorToken(): Promise<string> {
    return this.connectorTokens.get();
  }

  /** Sends one outbox row if it is due and nobody else holds it. */
  async dispatch(outboundId: string): Promise<void> {
    const row = await this.repo.claimOutbound(outboundId, SEND_LEASE_MS);
    if (!row) return;
    try {
      if (row.channel === 'email' && (await this.mailboxStoppedFor(row))) {
        await this.repo.updateOutbound(row.id, { status: 'held', claimedUntil: null, lastError: 'mailbox suspended' });
        return;
      }
      const integration = row.channel === 'email' ? undefined : await this.repo.findIntegrationByChannel(row.orgId, row.channel);
      const secrets = integration ? this.integrations.secretsOf(integration) : {};
      const result = await this.breakers.get(row.channel)!.fire({ outboundId: row.id, content: row.content, target: row.target, secrets });
      await this.repo.updateOutbound(row.id, { status: 'sent', sentAt: new Date(), claimedUntil: null, externalId: result.externalId, lastError: null });
      this.metrics.sent(row.channel, 'sent');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const last = row.attempts >= MAX_ATTEMPTS;
      const delay = RETRY_DELAYS_MS[Math.min(row.attempts - 1, RETRY_DELAYS_MS.length - 1)]!;
      logger.warn({ outboundId: row.id, channel: row.channel, attempt: row.attempts, err: message }, last ? 'outbound reply failed for good' : 'outbound reply failed; will retry');
      await this.repo.updateOutbound(row.id, { status: last ? 'failed' : 'pending', claimedUntil: null, lastError: message.slice(0, 1000), nextAttemptAt: new Date(Date.now() + delay) });
      this.metrics.sent(row.channel, last ? 'failed' : 'retried');
    }
  }

  /** Due rows a lost job or a crash left behind (the periodic sweep). */
  async dispatchDue(limit = 50): Promise<number> {
    const due = await this.repo.dueOutbound(limit);
    for (const row of due) await this.dispatch(row.id);
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
    const osa = await this.assignments.get(conversation.orgId, conversation.assignmentId).catch(() => undefined);
    return !osa || Boolean(osa.mailboxSuspendedAt || osa.mailboxArchivedAt);
  }

  private async mailboxStoppedFor(row: OutboundRow): Promise<boolean> {
    const alias = typeof row.target.from === 'string' ? row.target.from : '';
    const osa = await this.assignments.findByAlias(alias);
    return !osa || Boolean(osa.mailboxSuspendedAt || osa.mailboxArchivedAt);
  }
}
