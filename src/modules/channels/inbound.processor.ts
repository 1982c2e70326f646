import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { v5 as uuidv5 } from 'uuid';
import type { ChannelName, QuarantineReason } from '../../contracts/channels.js';
import type { ConversationChannel } from '../../contracts/conversations.js';
import { Clock, systemNow } from '../../platform/clock/clock.js';
import { channelsConfig, type ChannelsConfig } from './channels.config.js';
import { DbService } from '../../platform/db/db.service.js';
import { storableText } from '../../platform/db/storable-text.js';
import { AppError } from '../../platform/errors/app-error.js';
import { logger } from '../../platform/observability/logger.js';
import { securityEvent } from '../../platform/observability/security-log.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../platform/http/json-body.js';
import { jobScope } from '../../platform/tenancy/org-scope.js';
import { ArtifactsService, ConversationsService, channelMessageKey } from '../conversations/index.js';
import { OrgsService } from '../orgs/index.js';
import { AssignmentsService } from '../specialists/index.js';
import { AttachmentFetcher, AttachmentRefused, MAX_ATTACHMENT_BYTES } from './attachments.fetch.js';
import {
  chatABotUser,
  enterpriseChatTenant,
  parseChatA,
  parseEnterpriseChat,
  parseMessagingA,
  parseMessagingB,
  parseBody,
  type ChatAEnvelope,
  type ParseResult,
  type EnterpriseChatActivity,
  type InboundAttachment,
  type InboundMessage,
  type MessagingBBot,
  type MessagingBUpdate,
  chatAFile,
} from './channels.parse.js';
import { ChannelMetrics } from './channel-metrics.js';
import { ChannelsRepository } from './channels.repository.js';
import type { BindingKind, InboundEventRow, IntegrationRow } from './channels.tables.js';
import { formParams } from './channels.verify.js';
import { parseEmail } from './email.parse.js';
import { IngressLoad } from './ingress-load.js';
import { IntegrationsService } from './integrations.service.js';
import { MESSAGING_A_API_ORIGIN, basicAuth, isConnectorAttachmentHost, messagingAAccount } from './outbound.senders.js';
import { OutboundService } from './outbound.service.js';

/** What a processed mail's kept request becomes: its message and artifacts hold the content. */
export const ERASED_MAIL_BODY = JSON.stringify({ erased: 'processed: the message is in its conversation, its attachments in the conversation artifacts' });
/** Namespace of the artifact ids derived from (conversation, message, file index): one file, one artifact, whichever event carried it. */
const ARTIFACT_ID_NAMESPACE = '5c1d0b0e-8f5e-4c52-9a43-3f0b6f2d7a11';
const ACTIVE_ORG_STATUSES = new Set(['active', 'trial_ending']);
/** Channels whose group conversations need the bot addressed (an engagement) before it answers. */
const ENGAGEMENT_CHANNELS: readonly ChannelName[] = ['chat-a', 'enterprise-chat', 'messaging-b'];

type Outcome =
  | { status: 'done'; orgId: string; conversationId: string; messageId: string; note?: string }
  | { status: 'ignored'; reason: string; orgId?: string }
  | { status: 'quarantined'; reason: QuarantineReason; orgId?: string; integrationId?: string };

type Route = Routed | { ignore: string; orgId?: string };

interface Routed {
  orgId: string;
  integration?: IntegrationRow;
  /** The OSA the message was addressed to (an email alias); else the org's primary. */
  assignmentId?: string;
  message: InboundMessage;
  /** Email: earlier message ids the message replies to. */
  chain?: string[];
}

/** A fetched attachment: its bytes, and the file as finally described. */
interface Fetched {
  data: Buffer;
  file: InboundAttachment;
}

class Quarantine extends Error {
  constructor(
    readonly reason: QuarantineReason,
    readonly orgId?: string,
    readonly integrationId?: string,
  ) {
    super(reason);
  }
}

/**
 * A stored JSON body as an object, or a quarantine: too deep, not JSON, or not an object. Pure
 * and deterministic, so a retry could never help.
 */
function storedObject<T>(raw: string): T {
  // Deeper stored JSON is hostile (the HTTP layer refuses it too): never parsed.
  if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) throw new Quarantine('malformed_body');
  let parsed: unknown;
  try {
    parsed = parseBody(raw);
  } catch {
    throw new Quarantine('malformed_body');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Quarantine('malformed_body');
  return parsed as T;
}

/** A pure parser over hostile input: whatever it throws (a field of an unexpected type) quarantines. */
function parsing<T>(parse: () => T): T {
  try {
    return parse();
  } catch {
    throw new Quarantine('malformed_body');
  }
}

/**
 * The worker half of the ingress pipeline: resolves the org from explicit bindings, applies the
 * engagement gate, finds or opens the conversation, stores the client's message once and runs the
 * turn through the conversations module. What cannot be resolved or may not run is kept and
 * quarantined with its reason.
 */
@Injectable()
export class InboundProcessor implements OnModuleDestroy {
  private readonly attachments: AttachmentFetcher;

  constructor(
    private readonly repo: ChannelsRepository,
    private readonly conversations: ConversationsService,
    private readonly orgs: OrgsService,
    private readonly assignments: AssignmentsService,
    private readonly dbService: DbService,
    private readonly artifacts: ArtifactsService,
    private readonly integrations: IntegrationsService,
    private readonly outbound: OutboundService,
    @Inject(channelsConfig.token) private readonly config: ChannelsConfig,
    private readonly metrics: ChannelMetrics,
    private readonly clock: Clock,
    private readonly ingressLoad: IngressLoad,
  ) {
    this.attachments = new AttachmentFetcher({ hosts: config.inbound.attachmentHosts });
  }

  onModuleDestroy(): Promise<void> {
    return this.attachments.close();
  }

  /** Processes one event unless another worker has it. `final`: no retry follows a failure. */
  async process(eventId: string, final = true): Promise<void> {
    // A burst of webhook calls is answered first (bounded: see IngressLoad).
    await this.ingressLoad.quiet();
    // A processing attempt older than INBOUND_LEASE_MS is a dead worker's: the event may be taken again.
    const event = await this.repo.unscopedClaimEvent(eventId, new Date(systemNow().getTime() - this.config.recovery.inboundLeaseMs));
    if (!event) return;
    let outcome: Outcome;
    try {
      outcome = await this.handle(event);
    } catch (err) {
      if (err instanceof Quarantine) {
        outcome = { status: 'quarantined', reason: err.reason, orgId: err.orgId, integrationId: err.integrationId };
      } else {
        const message = err instanceof Error ? err.message : String(err);
        logger.error({ err, eventId, channel: event.channel }, 'inbound event processing failed');
        // The error may quote the hostile input (a NUL the database refuses): keep its note storable.
        await this.repo.unscopedFinishEvent(event.id, final ? 'failed' : 'queued', { lastError: storableText(message).slice(0, 2000) });
        this.metrics.finished(event.channel, final ? 'failed' : 'retried');
        if (!final) throw err;
        return;
      }
    }
    if (outcome.status === 'done') {
      // Spec 4.8 rule 4: a mail's attachments live once, in the conversation's artifacts; the
      // kept request (base64 MIME) is not a second copy once its message is stored.
      const erased = event.channel === 'email' ? { body: ERASED_MAIL_BODY } : {};
      await this.repo.unscopedFinishEvent(event.id, 'done', {
        orgId: outcome.orgId,
        conversationId: outcome.conversationId,
        messageId: outcome.messageId,
        ...(outcome.note ? { lastError: outcome.note } : {}),
        ...erased,
      });
    } else if (outcome.status === 'ignored') {
      await this.repo.unscopedFinishEvent(event.id, 'ignored', { reason: outcome.reason, orgId: outcome.orgId ?? null });
    } else {
      logger.info({ eventId, channel: event.channel, reason: outcome.reason }, 'inbound event quarantined');
      await this.repo.unscopedFinishEvent(event.id, 'quarantined', { reason: outcome.reason, orgId: outcome.orgId ?? null, integrationId: outcome.integrationId ?? null });
    }
    this.metrics.finished(event.channel, outcome);
  }

  private async handle(event: InboundEventRow): Promise<Outcome> {
    const routed = await this.route(event);
    if ('ignore' in routed) return { status: 'ignored', reason: routed.ignore, orgId: routed.orgId };
    const { orgId, message } = routed;
    const org = await this.orgs.findById(orgId);
    if (!org || !ACTIVE_ORG_STATUSES.has(org.status)) throw new Quarantine('org_inactive', orgId);

    const conversationId = await this.conversationFor(routed);
    if (conversationId === null) return { status: 'ignored', reason: message.completes ? 'engagement_completed' : 'unaddressed', orgId };
    const { content, refused } = await this.withAttachments(routed, conversationId);
    const note = refused.length ? storableText(`attachments not fetched: ${refused.join('; ')}`).slice(0, 2000) : undefined;
    if (!content) return { status: 'ignored', reason: 'empty', orgId };
    // Where this message's own reply goes, kept before its turn can run: a second message of the
    // thread arriving while the turn runs has a target of its own and changes nobody else's.
    await this.repo.keepReplyTarget(jobScope(routed), { conversationId, channel: message.channel, messageKey: channelMessageKey(message.channel, message.messageKey), target: message.replyTarget });
    try {
      const received = await this.conversations.receiveFromChannel({ conversationId, orgId, channel: message.channel as ConversationChannel, messageKey: message.messageKey, content });
      return { status: 'done', orgId, conversationId, messageId: received.message.id, note };
    } catch (err) {
      if (err instanceof AppError && err.code === 'rate_limit') throw new Quarantine('quota_exceeded', orgId);
      throw err;
    }
  }

  /** Parses the event and finds its org through the bindings (never a scan of credentials). */
  private async route(event: InboundEventRow): Promise<Route> {
    const raw = event.body;
    switch (event.channel) {
      case 'chat-a': {
        const envelope = storedObject<ChatAEnvelope>(raw);
        const workspace = typeof envelope.team_id === 'string' ? envelope.team_id : '';
        return this.throughBinding('chat-a', 'workspace', workspace, (integration) => parseChatA(envelope, chatABotUser(envelope, integration.config.botUserId)));
      }
      case 'messaging-a': {
        const params = Object.fromEntries(Object.entries(formParams(Buffer.from(raw))).map(([k, v]) => [k, storableText(v)]));
        const parsed = parsing(() => parseMessagingA(params));
        if (!parsed.ok) return { ignore: parsed.ignore };
        // The door proved which account the message came in on: an org's own (its integration), else the platform's pool.
        const own = typeof event.meta.integrationId === 'string' ? event.meta.integrationId : undefined;
        if (!own) return this.throughBinding('messaging-a', 'sender_number', parsed.message.sender.id, () => parsed);
        parsed.message.replyTarget.ownAccount = true;
        return this.throughBinding(
          'messaging-a',
          'account_sid',
          params.AccountSid ?? '',
          (integration) => {
            // On its own account the org's whitelist, when it has one, only filters the senders.
            const whitelist = Array.isArray(integration.config.whitelist) ? integration.config.whitelist : [];
            return whitelist.length === 0 || whitelist.includes(parsed.message.sender.id) ? parsed : { ok: false, ignore: 'sender_not_whitelisted' };
          },
          own,
        );
      }
      case 'messaging-b': {
        // The door proved the secret of this integration; its binding names the secret's hash.
        const integrationId = String(event.meta.integrationId ?? '');
        const update = storedObject<MessagingBUpdate>(raw);
        const known = await this.repo.unscopedFindIntegrationById(integrationId);
        const secret = known ? (await this.repo.bindingsOf(jobScope(known), known.id)).find((b) => b.kind === 'secret_sha256') : undefined;
        return this.throughBinding('messaging-b', 'secret_sha256', secret?.value ?? '', (integration) => parseMessagingB(update, this.messagingBBot(integration)));
      }
      case 'email': {
        // `{rawMessage}` from the signed route; a mail gateway's door adds the envelope recipient it was delivered to.
        const body = storedObject<{ rawMessage?: unknown; recipient?: unknown }>(raw);
        if (typeof body.rawMessage !== 'string') throw new Quarantine('malformed_body');
        const mail = await parseEmail(Buffer.from(body.rawMessage, 'base64'));
        const envelope =
          typeof body.recipient === 'string'
            ? body.recipient
                .toLowerCase()
                .split(',')
                .map((a) => a.trim())
                .filter(Boolean)
            : [];
        for (const address of new Set([...envelope, ...mail.recipients])) {
          const osa = await this.assignments.findByAlias(address);
          if (!osa) continue;
          // Spec 3.3: a suspended or archived mailbox receives nothing.
          if (osa.mailboxSuspendedAt || osa.mailboxArchivedAt) throw new Quarantine('mailbox_suspended', osa.orgId);
          if (!mail.from) return { ignore: 'no_sender', orgId: osa.orgId };
          const messageId = mail.messageId ?? `<${event.id}@inbound.invalid>`;
          return {
            orgId: osa.orgId,
            assignmentId: osa.id,
            chain: mail.chain,
            message: {
              channel: 'email',
              messageKey: messageId,
              threadKey: messageId,
              text: mail.text,
              sender: { id: mail.from.address, name: mail.from.name },
              addressed: true,
              completes: false,
              // RFC 5322 3.6.4: the reply's References are this message's References (or its In-Reply-To) and its Message-ID.
              replyTarget: { to: mail.from.address, from: address, subject: mail.subject, messageId, references: [...mail.references.filter((id) => id !== messageId), messageId] },
              attachments: mail.attachments,
              subject: mail.subject,
            },
          };
        }
        throw new Quarantine('unresolved_org');
      }
      case 'enterprise-chat': {
        const activity = storedObject<EnterpriseChatActivity>(raw);
        const tenant = parsing(() => enterpriseChatTenant(activity)) ?? '';
        // Replies carry the connector token: only to the serviceUrl the inbound token vouched for.
        const serviceUrl = typeof event.meta.serviceUrl === 'string' ? event.meta.serviceUrl : undefined;
        return this.throughBinding('enterprise-chat', 'tenant', tenant, () => {
          const parsed = parseEnterpriseChat(activity);
          if (parsed.ok) parsed.message.replyTarget.serviceUrl = serviceUrl;
          return parsed;
        });
      }
    }
  }

  /**
   * Routes a message through the binding of its source (API-MAP.md "Channel bindings"): the
   * verified integration gets it; pending claims get nothing (quarantined `binding_unverified`)
   * unless the message carries one's code, which verifies that source and ends there (no turn: the
   * message was the proof, written before the binding routed anything).
   */
  private async throughBinding(channel: ChannelName, kind: BindingKind, value: string, parse: (integration: IntegrationRow) => ParseResult, onlyIntegration?: string): Promise<Route> {
    let holder = value ? await this.integrations.resolveSource(channel, kind, value) : undefined;
    // A source the door proved for one integration (its credential signed the call) routes only there.
    if (holder && onlyIntegration !== undefined) {
      if ('verified' in holder) holder = holder.verified.integration.id === onlyIntegration ? holder : undefined;
      else holder = holder.pending.some((c) => c.integration.id === onlyIntegration) ? { pending: holder.pending.filter((c) => c.integration.id === onlyIntegration) } : undefined;
    }
    if (!holder) throw new Quarantine('unresolved_org');
    if ('verified' in holder) {
      const { integration } = holder.verified;
      const parsed = parsing(() => parse(integration));
      return parsed.ok ? { orgId: integration.orgId, integration, message: parsed.message } : { ignore: parsed.ignore, orgId: integration.orgId };
    }
    for (const claim of holder.pending) {
      const parsed = parsing(() => parse(claim.integration));
      if (parsed.ok && (await this.integrations.verifyByMessage(claim, parsed.message.text))) return { ignore: 'binding_verified', orgId: claim.integration.orgId };
    }
    // One claimant: the event is that org's (its health counts it); several: nobody's yet.
    const [only, ...others] = holder.pending;
    throw others.length === 0 ? new Quarantine('binding_unverified', only!.integration.orgId, only!.integration.id) : new Quarantine('binding_unverified');
  }

  /**
   * The conversation of the message's thread, opened when new; null when the engagement gate
   * says no turn (spec 4.8 rule 2): an unaddressed message with no active engagement, or `[done]`.
   */
  private async conversationFor(routed: Routed): Promise<string | null> {
    const { orgId, message } = routed;
    // The org the event's verified source binding routed it to.
    const scope = jobScope(routed);
    // Business time: an engagement's TTL is measured on the service's clock (tests move it).
    const now = this.clock.now().getTime();
    const ttlMs = this.config.engagementTtlHours * 3600_000;
    const gated = ENGAGEMENT_CHANNELS.includes(message.channel);
    let thread = await this.repo.findThread(scope, message.channel, message.threadKey);
    if (!thread && routed.chain?.length) {
      // An email reply threads into the conversation of a message its chain names (the client's,
      // or one of ours: every outgoing Message-ID is a key of its conversation), the nearest first.
      const known = await this.repo.findThreadsByKeys(scope, message.channel, routed.chain);
      const nearest = known.sort((a, b) => routed.chain!.indexOf(b.threadKey) - routed.chain!.indexOf(a.threadKey))[0];
      if (nearest) {
        await this.repo.insertThread(scope, { channel: message.channel, threadKey: message.threadKey, conversationId: nearest.conversationId });
        thread = await this.repo.findThread(scope, message.channel, message.threadKey);
      }
    }
    if (gated) {
      if (message.completes) {
        if (thread) await this.repo.updateThread(scope, thread.id, { completedAt: new Date(now), engagedUntil: null });
        return null;
      }
      const engaged = thread && !thread.completedAt && thread.engagedUntil && thread.engagedUntil.getTime() > now;
      if (!message.addressed && !engaged) return null;
    }
    const engagement = gated ? { engagedUntil: new Date(now + ttlMs), completedAt: null } : {};
    if (thread) {
      await this.repo.updateThread(scope, thread.id, engagement);
      return thread.conversationId;
    }
    // A new thread: bind it and open its conversation in one transaction, so two messages of one
    // new thread processed at once still make one conversation.
    return this.dbService.transaction(async () => {
      const conversationId = randomUUID();
      const bound = await this.repo.insertThread(scope, { channel: message.channel, threadKey: message.threadKey, conversationId, ...engagement });
      if (!bound) return (await this.repo.findThread(scope, message.channel, message.threadKey))!.conversationId;
      try {
        await this.conversations.openForChannel({ id: conversationId, orgId, channel: message.channel as ConversationChannel, assignmentId: routed.assignmentId, subject: message.subject });
      } catch (err) {
        if (err instanceof AppError && err.code === 'conflict') throw new Quarantine('no_specialist', orgId);
        throw err;
      }
      return conversationId;
    });
  }

  /**
   * Attachments go to the conversation's artifacts (stored once, by the conversations module) and
   * reach the agent as resource blocks (a reference, never the bytes inlined). One that cannot or
   * may not be fetched is left out and the reason returned: the message keeps its turn. Each file
   * of a message is one artifact, however many events carry the message (chat-a sends a mention as
   * `message` and `app_mention`).
   */
  private async withAttachments(routed: Routed, conversationId: string): Promise<{ content: string; refused: string[] }> {
    const { orgId, message } = routed;
    const blocks: string[] = [];
    const refused: string[] = [];
    for (const [index, attachment] of message.attachments.entries()) {
      let fetched: Fetched;
      try {
        fetched = await this.fetchAttachment(attachment, routed);
      } catch (err) {
        const reason = err instanceof AttachmentRefused ? err.reason : 'unreachable';
        const detail = err instanceof AttachmentRefused && err.detail ? ` (${err.detail})` : '';
        refused.push(`${attachment.name}: ${reason}${detail}`);
        const fields = { channel: message.channel, orgId, host: err instanceof AttachmentRefused ? err.host : undefined, reason };
        if (reason === 'host_not_allowed' || reason === 'private_address') securityEvent('attachment_refused', fields);
        else logger.warn({ ...fields, err: err instanceof AttachmentRefused ? undefined : String(err) }, 'inbound attachment not fetched');
        continue;
      }
      const { data, file } = fetched;
      const { name, contentType } = concreteType(file, data);
      const id = uuidv5(`${conversationId}\n${message.messageKey}\n${index}`, ARTIFACT_ID_NAMESPACE);
      blocks.push(await this.artifacts.store(jobScope(routed), { id, conversationId, name, contentType, data }));
    }
    return { content: [message.text, ...blocks].filter(Boolean).join('\n'), refused };
  }

  /** The file's bytes, and the file as finally described (chat-a's files.info names a Slack Connect file). */
  private async fetchAttachment(attachment: InboundAttachment, routed: Routed): Promise<Fetched> {
    const channel = routed.message.channel;
    if (attachment.unavailable) throw new AttachmentRefused('unavailable', channel, attachment.unavailable);
    if (attachment.size !== undefined && attachment.size > MAX_ATTACHMENT_BYTES) throw new AttachmentRefused('too_large', channel, `${attachment.size} bytes`);
    if (attachment.data) {
      if (attachment.data.length > MAX_ATTACHMENT_BYTES) throw new AttachmentRefused('too_large', channel);
      return { data: attachment.data, file: attachment };
    }
    if (attachment.fileId !== undefined && channel === 'messaging-b') return { data: await this.fetchMessagingBFile(attachment, routed), file: attachment };
    if (attachment.fileId !== undefined && channel === 'chat-a') return this.fetchAttachment(await this.chatAFileInfo(attachment.fileId, routed), routed);
    if (!attachment.url) throw new AttachmentRefused('bad_url', channel);
    if (channel === 'chat-a' && !this.botToken(routed)) throw new AttachmentRefused('unavailable', 'chat-a', 'the integration has no botToken secret');
    return { data: await this.attachments.fetch({ url: attachment.url, headers: await this.credentialFor(routed, attachment), contentType: attachment.contentType }), file: attachment };
  }

  private botToken(routed: Routed): string | undefined {
    return routed.integration ? this.integrations.secretsOf(routed.integration).botToken : undefined;
  }

  /** The messaging-b bot: its configured username, and its user id (the part of its token before the colon). */
  private messagingBBot(integration: IntegrationRow): MessagingBBot {
    const token = this.integrations.secretsOf(integration).botToken;
    const id = token && /^\d+:/.test(token) ? token.slice(0, token.indexOf(':')) : undefined;
    return { username: typeof integration.config.botUsername === 'string' ? integration.config.botUsername : undefined, id };
  }

  /** messaging-b: the Bot API `getFile` names the file's path, then the file is downloaded; both from ATTACHMENT_HOSTS. */
  private async fetchMessagingBFile(attachment: InboundAttachment, routed: Routed): Promise<Buffer> {
    const base = this.config.apis.messagingBApiBaseUrl;
    const botToken = this.botToken(routed);
    if (!base) throw new AttachmentRefused('unavailable', 'messaging-b', 'MESSAGING_B_API_BASE_URL is not configured');
    if (!botToken) throw new AttachmentRefused('unavailable', 'messaging-b', 'the integration has no botToken secret');
    const answer = await this.attachments.fetch({ url: `${base}/bot${botToken}/getFile?file_id=${encodeURIComponent(attachment.fileId!)}` });
    let filePath: unknown;
    try {
      filePath = (JSON.parse(answer.toString('utf8')) as { result?: { file_path?: unknown } }).result?.file_path;
    } catch {
      filePath = undefined;
    }
    if (typeof filePath !== 'string' || !filePath) throw new AttachmentRefused('bad_status', new URL(base).host, 'getFile named no file_path');
    return this.attachments.fetch({ url: `${base}/file/bot${botToken}/${filePath.split('/').map(encodeURIComponent).join('/')}`, contentType: attachment.contentType });
  }

  /**
   * chat-a: a Slack Connect file names only its id (`file_access: 'check_file_info'`); `files.info`
   * on CHAT_A_API_BASE_URL, with the bot token, describes the file, which is then downloaded as any other.
   */
  private async chatAFileInfo(fileId: string, routed: Routed): Promise<InboundAttachment> {
    const base = this.config.apis.chatAApiBaseUrl;
    const botToken = this.botToken(routed);
    if (!base) throw new AttachmentRefused('unavailable', 'chat-a', 'CHAT_A_API_BASE_URL is not configured');
    if (!botToken) throw new AttachmentRefused('unavailable', 'chat-a', 'the integration has no botToken secret');
    const host = new URL(base).host;
    let answer: { ok?: boolean; error?: unknown; file?: unknown };
    try {
      const res = await fetch(`${base}/files.info`, {
        method: 'POST',
        headers: { authorization: `Bearer ${botToken}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ file: fileId }).toString(),
        signal: AbortSignal.timeout(15_000),
      });
      if (!res.ok) throw new AttachmentRefused('bad_status', host, `files.info answered HTTP ${res.status}`);
      answer = (await res.json()) as typeof answer;
    } catch (err) {
      throw err instanceof AttachmentRefused ? err : new AttachmentRefused('unreachable', host, 'files.info');
    }
    if (answer.ok !== true) throw new AttachmentRefused('unavailable', host, `files.info: ${typeof answer.error === 'string' ? answer.error.slice(0, 100) : 'refused'}`);
    const [file] = chatAFile(answer.file);
    if (!file?.url) throw new AttachmentRefused('unavailable', host, `files.info: ${file?.unavailable ?? 'no download URL'}`);
    return file;
  }

  /**
   * The channel's own credential for its file host (API-MAP "Channel bindings and vendor traffic"),
   * only to that host (the fetcher drops it on a redirect to another origin): chat-a's bot token;
   * messaging-a's HTTP Basic of the account the message came in on, to its REST API host only;
   * enterprise-chat's connector token, to the verified serviceUrl's origin or the Bot Framework's
   * attachment hosts, never with a pre-authenticated download URL.
   */
  private async credentialFor(routed: Routed, attachment: InboundAttachment): Promise<Record<string, string> | undefined> {
    const { channel, replyTarget } = routed.message;
    const url = attachment.url!;
    if (attachment.preauthenticated) return undefined;
    if (channel === 'chat-a') {
      const botToken = this.botToken(routed);
      return botToken ? { authorization: `Bearer ${botToken}` } : undefined;
    }
    if (channel === 'messaging-a') {
      const secrets = routed.integration ? this.integrations.secretsOf(routed.integration) : {};
      const account = messagingAAccount(replyTarget, secrets, this.config.inbound.messagingAAuthToken);
      const origin = originOf(url);
      const onApiHost = origin !== undefined && (origin === MESSAGING_A_API_ORIGIN || origin === originOf(this.config.apis.messagingAApiBaseUrl));
      return account && onApiHost ? { authorization: basicAuth(account) } : undefined;
    }
    if (channel === 'enterprise-chat' && typeof replyTarget.serviceUrl === 'string' && (sameOrigin(url, replyTarget.serviceUrl) || isConnectorAttachmentHost(url))) {
      const token = await this.outbound.connectorToken().catch(() => undefined);
      return token ? { authorization: `Bearer ${token}` } : undefined;
    }
    return undefined;
  }
}

/** Signatures of the image types a vendor names only as `image/*` (enterprise-chat inline images). */
const IMAGE_SIGNATURES: Array<[string, string, (d: Buffer) => boolean]> = [
  ['image/png', 'png', (d) => d.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['image/jpeg', 'jpg', (d) => d[0] === 0xff && d[1] === 0xd8 && d[2] === 0xff],
  ['image/gif', 'gif', (d) => d.subarray(0, 4).toString('latin1') === 'GIF8'],
  ['image/webp', 'webp', (d) => d.subarray(0, 4).toString('latin1') === 'RIFF' && d.subarray(8, 12).toString('latin1') === 'WEBP'],
];

/** A wildcard media type (`image/*`) made concrete from the bytes, the name given its extension; others as given. */
function concreteType(attachment: InboundAttachment, data: Buffer): { name: string; contentType: string } {
  if (!attachment.contentType.endsWith('/*')) return { name: attachment.name, contentType: attachment.contentType };
  const known = IMAGE_SIGNATURES.find(([type, , test]) => type.startsWith(attachment.contentType.slice(0, -1)) && test(data));
  if (!known) return { name: attachment.name, contentType: 'application/octet-stream' };
  return { name: /\.[a-z0-9]+$/i.test(attachment.name) ? attachment.name : `${attachment.name}.${known[1]}`, contentType: known[0] };
}

function originOf(url: string | undefined): string | undefined {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
}

function sameOrigin(a: string, b: string): boolean {
  const origin = originOf(a);
  return origin !== undefined && origin === originOf(b);
}
