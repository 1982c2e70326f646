import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { ChannelName, QuarantineReason } from '../../contracts/channels.js';
import type { ConversationChannel } from '../../contracts/conversations.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { DbService } from '../../platform/db/db.service.js';
import { storableText } from '../../platform/db/storable-text.js';
import { AppError } from '../../platform/errors/app-error.js';
import { logger } from '../../platform/observability/logger.js';
import { securityEvent } from '../../platform/observability/security-log.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../platform/http/json-body.js';
import { ConversationsService } from '../conversations/index.js';
import { OrgsService } from '../orgs/index.js';
import { AssignmentsService } from '../specialists/index.js';
import { AttachmentFetcher, AttachmentRefused, MAX_ATTACHMENT_BYTES } from './attachments.fetch.js';
import { ARTIFACT_STORAGE, type ArtifactStorage } from './artifacts.storage.js';
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
import { ChannelsRepository } from './channels.repository.js';
import type { BindingKind, InboundEventRow, IntegrationRow } from './channels.tables.js';
import { formParams } from './channels.verify.js';
import { parseEmail } from './email.parse.js';
import { IntegrationsService } from './integrations.service.js';
import { OutboundService } from './outbound.service.js';

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
    @Inject(ARTIFACT_STORAGE) private readonly storage: ArtifactStorage,
    private readonly integrations: IntegrationsService,
    private readonly outbound: OutboundService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.attachments = new AttachmentFetcher({ hosts: config.channels.attachmentHosts });
  }

  onModuleDestroy(): Promise<void> {
    return this.attachments.close();
  }

  /** Processes one event unless another worker has it. `final`: no retry follows a failure. */
  async process(eventId: string, final = true): Promise<void> {
    // A processing attempt older than INBOUND_LEASE_MS is a dead worker's: the event may be taken again.
    const event = await this.repo.claimEvent(eventId, new Date(Date.now() - this.config.recovery.inboundLeaseMs));
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
        await this.repo.finishEvent(event.id, final ? 'failed' : 'queued', { lastError: storableText(message).slice(0, 2000) });
        if (!final) throw err;
        return;
      }
    }
    if (outcome.status === 'done') {
      await this.repo.finishEvent(event.id, 'done', { orgId: outcome.orgId, conversationId: outcome.conversationId, messageId: outcome.messageId, ...(outcome.note ? { lastError: outcome.note } : {}) });
    } else if (outcome.status === 'ignored') {
      await this.repo.finishEvent(event.id, 'ignored', { reason: outcome.reason, orgId: outcome.orgId ?? null });
    } else {
      logger.info({ eventId, channel: event.channel, reason: outcome.reason }, 'inbound event quarantined');
      await this.repo.finishEvent(event.id, 'quarantined', { reason: outcome.reason, orgId: outcome.orgId ?? null, integrationId: outcome.integrationId ?? null });
    }
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
        const parsed = parsing(() => parseMessagingA(Object.fromEntries(Object.entries(formParams(Buffer.from(raw))).map(([k, v]) => [k, storableText(v)]))));
        if (!parsed.ok) return { ignore: parsed.ignore };
        return this.throughBinding('messaging-a', 'sender_number', parsed.message.sender.id, () => parsed);
      }
      case 'messaging-b': {
        // The door proved the secret of this integration; its binding names the secret's hash.
        const integrationId = String(event.meta.integrationId ?? '');
        const update = storedObject<MessagingBUpdate>(raw);
        const known = await this.repo.findIntegrationByIdAny(integrationId);
        const secret = known ? (await this.repo.bindingsOf(known.id)).find((b) => b.kind === 'secret_sha256') : undefined;
        return this.throughBinding('messaging-b', 'secret_sha256', secret?.value ?? '', (integration) => parseMessagingB(update, this.messagingBBot(integration)));
      }
      case 'email': {
        const body = storedObject<{ rawMessage?: unknown }>(raw);
        if (typeof body.rawMessage !== 'string') throw new Quarantine('malformed_body');
        const mail = await parseEmail(Buffer.from(body.rawMessage, 'base64'));
        for (const address of mail.recipients) {
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
              replyTarget: { to: mail.from.address, from: address, subject: mail.subject, messageId, references: [...mail.chain, messageId] },
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
  private async throughBinding(channel: ChannelName, kind: BindingKind, value: string, parse: (integration: IntegrationRow) => ParseResult): Promise<Route> {
    const holder = value ? await this.integrations.resolveSource(channel, kind, value) : undefined;
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
    const now = Date.now();
    const ttlMs = this.config.channelEngagementTtlHours * 3600_000;
    const gated = ENGAGEMENT_CHANNELS.includes(message.channel);
    let thread = await this.repo.findThread(orgId, message.channel, message.threadKey);
    if (!thread && routed.chain?.length) {
      // An email reply threads into the conversation of the message it answers.
      const [earlier] = await this.repo.findThreadsByKeys(orgId, message.channel, routed.chain);
      if (earlier) {
        await this.repo.insertThread({ orgId, channel: message.channel, threadKey: message.threadKey, conversationId: earlier.conversationId, replyTarget: message.replyTarget });
        thread = await this.repo.findThread(orgId, message.channel, message.threadKey);
      }
    }
    if (gated) {
      if (message.completes) {
        if (thread) await this.repo.updateThread(thread.id, { completedAt: new Date(now), engagedUntil: null });
        return null;
      }
      const engaged = thread && !thread.completedAt && thread.engagedUntil && thread.engagedUntil.getTime() > now;
      if (!message.addressed && !engaged) return null;
    }
    const engagement = gated ? { engagedUntil: new Date(now + ttlMs), completedAt: null } : {};
    if (thread) {
      await this.repo.updateThread(thread.id, { replyTarget: message.replyTarget, ...engagement });
      return thread.conversationId;
    }
    // A new thread: bind it and open its conversation in one transaction, so two messages of one
    // new thread processed at once still make one conversation.
    return this.dbService.transaction(async () => {
      const conversationId = randomUUID();
      const bound = await this.repo.insertThread({ orgId, channel: message.channel, threadKey: message.threadKey, conversationId, replyTarget: message.replyTarget, ...engagement });
      if (!bound) return (await this.repo.findThread(orgId, message.channel, message.threadKey))!.conversationId;
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
   * Attachments go to the conversation's artifacts storage and reach the agent as resource blocks
   * (a reference, never the bytes inlined). One that cannot or may not be fetched is left out and
   * the reason returned: the message keeps its turn. Each file of a message is one artifact, however
   * many events carry the message (chat-a sends a mention as `message` and `app_mention`).
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
      const id = artifactId(conversationId, message.messageKey, index);
      const storageKey = `${orgId}/${conversationId}/${id}`;
      await this.storage.put(storageKey, data);
      await this.repo.insertArtifact({ id, orgId, conversationId, name: file.name, contentType: file.contentType, size: data.length, storageKey });
      blocks.push(`[resource uri="artifact://${id}" name="${file.name.replace(/"/g, "'")}" mimeType="${file.contentType}" size="${data.length}"]`);
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
    return { data: await this.attachments.fetch({ url: attachment.url, headers: await this.credentialFor(routed, attachment.url), contentType: attachment.contentType }), file: attachment };
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
    const base = this.config.channelApis.messagingBApiBaseUrl;
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
    const base = this.config.channelApis.chatAApiBaseUrl;
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
   * The channel's own credential for its file host (API-MAP "Channel bindings and vendor traffic"):
   * chat-a's bot token; enterprise-chat's connector token, only on the verified serviceUrl's origin.
   */
  private async credentialFor(routed: Routed, url: string): Promise<Record<string, string> | undefined> {
    const { channel, replyTarget } = routed.message;
    if (channel === 'chat-a') {
      const botToken = this.botToken(routed);
      return botToken ? { authorization: `Bearer ${botToken}` } : undefined;
    }
    if (channel === 'enterprise-chat' && typeof replyTarget.serviceUrl === 'string' && sameOrigin(url, replyTarget.serviceUrl)) {
      const token = await this.outbound.connectorToken().catch(() => undefined);
      return token ? { authorization: `Bearer ${token}` } : undefined;
    }
    return undefined;
  }
}

/** One artifact id per file of a message (its place among the message's files), whichever event carried it. */
function artifactId(conversationId: string, messageKey: string, index: number): string {
  const h = createHash('sha256').update(`${conversationId}\n${messageKey}\n${index}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}
