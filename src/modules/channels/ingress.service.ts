import { Inject, Injectable } from '@nestjs/common';
import type { ChannelName } from '../../contracts/channels.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { safeEqual, sha256Hex } from '../../platform/crypto/crypto.js';
import { isStorableText } from '../../platform/db/storable-text.js';
import { AppError } from '../../platform/errors/app-error.js';
import { securityEvent } from '../../platform/observability/security-log.js';
import { QueueService } from '../../platform/queue/queue.service.js';
import { RateLimitService, type Limiter } from '../../platform/rate-limit/rate-limit.service.js';
import { ChannelMetrics } from './channel-metrics.js';
import { ChannelsRepository } from './channels.repository.js';
import { MAX_SIGNATURE_AGE_S, formParams, header, verifyChatA, verifyEmailInbound, verifyMailgun, verifyMessagingA } from './channels.verify.js';
import { EnterpriseChatAuth } from './enterprise-chat.auth.js';
import type { IntegrationRow } from './channels.tables.js';
import { IntegrationsService, ownNumbers } from './integrations.service.js';
import './channels.jobs.js';

export interface WebhookCall {
  rawBody: Buffer | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** Path and query as received, for the messaging-a signature. */
  url: string;
}

/** The chat-a webhook throttle of spec 8: 1000 requests per 60 000 ms. */
const CHAT_A_THROTTLE = { name: 'chat-a-webhook', points: 1000, durationS: 60 };
/** A Mailgun token is good once while its timestamp may pass (either side of now). */
const MAILGUN_TOKENS = { name: 'mailgun-token', points: 1, durationS: 2 * MAX_SIGNATURE_AGE_S };
/** Routes under the backpressure signal of spec 7.1. */
const BACKPRESSURED: readonly ChannelName[] = ['chat-a', 'email', 'messaging-a', 'messaging-b'];

/** A JSON object body, or undefined when the body is none. */
function jsonOrNothing<T>(raw: Buffer): T | undefined {
  try {
    return json<T>(raw);
  } catch {
    return undefined;
  }
}

function json<T>(raw: Buffer): T {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw AppError.badRequest('The body is not JSON');
  }
  // Every vendor sends an object: `null`, a number or an array is malformed, not a crash.
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw AppError.badRequest('The body is not a JSON object');
  return parsed as T;
}

/**
 * The one ingress pipeline of spec 4.8 for all six routes: verify (fail closed: unsigned, wrongly
 * signed, stale or unconfigured answer 401 and nothing is stored), throttle, backpressure, then
 * keep the verified call in the durable inbound queue and answer at once. A worker does the rest.
 */
@Injectable()
export class IngressService {
  private readonly chatAThrottle: Limiter;
  private readonly mailgunTokens: Limiter;
  readonly enterpriseChatAuth: EnterpriseChatAuth;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: ChannelsRepository,
    private readonly integrations: IntegrationsService,
    private readonly queue: QueueService,
    rateLimits: RateLimitService,
    private readonly metrics: ChannelMetrics,
  ) {
    this.chatAThrottle = rateLimits.limiter(CHAT_A_THROTTLE);
    this.mailgunTokens = rateLimits.limiter(MAILGUN_TOKENS);
    const ch = config.channels;
    this.enterpriseChatAuth = new EnterpriseChatAuth({ appId: ch.enterpriseChatAppId, openIdMetadataUrl: ch.enterpriseChatOpenIdMetadataUrl, issuers: ch.enterpriseChatIssuers });
  }

  async chatA(call: WebhookCall): Promise<Record<string, unknown>> {
    const raw = this.body(call, 'chat-a');
    if (!verifyChatA(this.config.channels.chatASigningSecret, call.headers, raw, Math.floor(Date.now() / 1000))) throw invalidSignature('chat-a', 'signature');
    const envelope = json<{ type?: string; challenge?: string; team_id?: string; event_id?: string }>(raw);
    if (envelope.type === 'url_verification') return { challenge: String(envelope.challenge ?? '') };
    const workspace = keyPart(envelope.team_id) ?? 'unknown';
    await this.chatAThrottle.consumeOrThrow(workspace, 'The chat-a webhook throttle is exceeded');
    return this.accept('chat-a', `${workspace}:${keyPart(envelope.event_id) ?? sha256Hex(raw)}`, raw, { workspace });
  }

  /**
   * messaging-a: a message to a pool number is the platform's account (signed with
   * MESSAGING_A_AUTH_TOKEN); any other `To` must be a number of the org's own account that the
   * request's `AccountSid` names through its binding, signed with that account's auth token.
   */
  async messagingA(call: WebhookCall): Promise<Record<string, unknown>> {
    const raw = this.body(call, 'messaging-a');
    const params = formParams(raw);
    const fullUrl = new URL(this.config.publicUrl).origin + call.url;
    const signature = header(call.headers, 'x-messaging-a-signature');
    const { To: to, AccountSid: accountSid } = params;
    if (!to || !accountSid) throw invalidSignature('messaging-a', 'missing_account');
    let meta: Record<string, unknown> = {};
    if (this.config.channels.messagingANumberPool.includes(to)) {
      if (!verifyMessagingA(this.config.channels.messagingAAuthToken, signature, fullUrl, params)) throw invalidSignature('messaging-a', 'signature');
    } else {
      const account = await this.ownAccount(accountSid, signature, fullUrl, params);
      if (!account) throw invalidSignature('messaging-a', 'signature');
      if (!ownNumbers(account.config).includes(to)) throw AppError.unauthorized('The recipient is not a number of this service');
      meta = { integrationId: account.id };
    }
    return this.accept('messaging-a', keyPart(params.MessageSid) ?? keyPart(params.SmsMessageSid) ?? sha256Hex(raw), raw, meta);
  }

  /** The integration whose own account (bound by its SID: verified, else a pending claim) signed the request. */
  private async ownAccount(accountSid: string, signature: string | undefined, fullUrl: string, params: Record<string, string>): Promise<IntegrationRow | undefined> {
    const holder = await this.integrations.resolveSource('messaging-a', 'account_sid', accountSid);
    const claims = holder ? ('verified' in holder ? [holder.verified] : holder.pending) : [];
    return claims.find((c) => verifyMessagingA(this.integrations.secretsOf(c.integration).authToken, signature, fullUrl, params))?.integration;
  }

  async messagingB(call: WebhookCall): Promise<Record<string, unknown>> {
    const raw = this.body(call, 'messaging-b');
    const token = header(call.headers, 'x-messaging-b-secret-token');
    if (!token) throw invalidSignature('messaging-b', 'missing_secret_token');
    // The verified holder of the secret, else the oldest pending claim (its worker may verify it).
    const holder = await this.integrations.resolveSource('messaging-b', 'secret_sha256', sha256Hex(token));
    const bound = holder ? ('verified' in holder ? holder.verified : holder.pending[0]) : undefined;
    const secret = bound ? this.integrations.secretsOf(bound.integration).webhookSecret : undefined;
    if (!bound || !secret || !safeEqual(token, secret)) throw invalidSignature('messaging-b', 'unknown_secret_token');
    const update = json<{ update_id?: number }>(raw);
    return this.accept('messaging-b', `${bound.integration.id}:${keyPart(update.update_id) ?? sha256Hex(raw)}`, raw, { integrationId: bound.integration.id });
  }

  async email(call: WebhookCall): Promise<Record<string, unknown>> {
    const raw = this.body(call, 'email');
    if (!verifyEmailInbound(this.config.channels.emailInboundSigningSecret, header(call.headers, 'x-email-signature'), raw)) throw invalidSignature('email', 'signature');
    const body = json<{ rawMessage?: unknown }>(raw);
    if (typeof body.rawMessage !== 'string' || body.rawMessage.length === 0) throw new AppError('validation_failed', 'Invalid body', { details: [{ field: 'rawMessage', message: 'Required: the base64 RFC 822 message' }] });
    return this.acceptMail(Buffer.from(body.rawMessage, 'base64'), raw);
  }

  /**
   * Mailgun's own door: a Route's forward() to a URL ending in `mime` posts the raw message
   * (`body-mime`) with `recipient`, `timestamp`, `token` and `signature`. Verified Mailgun's way,
   * then kept like a `{rawMessage}` call (plus the envelope recipient) for the same worker.
   */
  async mailgun(form: Record<string, string>): Promise<Record<string, unknown>> {
    if (!verifyMailgun(this.config.channels.mailgunWebhookSigningKey, form, Math.floor(Date.now() / 1000))) throw invalidSignature('email', 'mailgun_signature');
    // The signature covers neither the message nor the recipient: a replayed token could carry another mail.
    if (!(await this.mailgunTokens.consume(sha256Hex(form.token!))).allowed) throw invalidSignature('email', 'mailgun_token_replayed');
    const mime = form['body-mime'];
    if (!mime) throw new AppError('validation_failed', 'Invalid body', { details: [{ field: 'body-mime', message: 'Required: the raw MIME message (forward to a URL ending in mime)' }] });
    const message = Buffer.from(mime, 'utf8');
    const stored = { rawMessage: message.toString('base64'), ...(form.recipient ? { recipient: form.recipient } : {}) };
    return this.acceptMail(message, Buffer.from(JSON.stringify(stored)));
  }

  async enterpriseChat(call: WebhookCall): Promise<Record<string, unknown>> {
    const raw = this.body(call, 'enterprise-chat');
    const activity = jsonOrNothing<{ id?: string; serviceUrl?: unknown; channelId?: unknown; conversation?: { id?: string } }>(raw) ?? {};
    const verdict = await this.enterpriseChatAuth.verify(header(call.headers, 'authorization'), activity);
    if (!verdict.ok) throw invalidSignature('enterprise-chat', verdict.reason);
    // The reply goes to the serviceUrl the token vouches for, never to one the body names alone.
    return this.accept('enterprise-chat', `${keyPart(activity.conversation?.id) ?? ''}:${keyPart(activity.id) ?? sha256Hex(raw)}`, raw, { issuer: verdict.claims.iss, serviceUrl: verdict.serviceUrl });
  }

  /** One mail, whichever door it came through: its Message-ID is the event key, so a redelivery is one event. */
  private acceptMail(message: Buffer, stored: Buffer): Promise<Record<string, unknown>> {
    const head = message.subarray(0, 64 * 1024).toString('utf8').split(/\r?\n\r?\n/)[0] ?? '';
    const messageId = /^message-id:\s*(<[^>]+>)/im.exec(head)?.[1];
    return this.accept('email', keyPart(messageId) ?? sha256Hex(message), stored, {});
  }

  private body(call: WebhookCall, channel: ChannelName): Buffer {
    // No body means nothing to verify: refuse like an unsigned call.
    if (!call.rawBody || call.rawBody.length === 0) throw invalidSignature(channel, 'empty_body');
    return call.rawBody;
  }

  /** Spec 7.1: a full inbound queue answers 503 before anything new is accepted. */
  private async backpressure(channel: ChannelName): Promise<void> {
    if (!BACKPRESSURED.includes(channel)) return;
    const depth = await this.repo.openDepth();
    if (depth >= this.config.limits.inboundQueueMaxDepth) {
      const retryAfter = String(this.config.limits.backpressureRetryAfterS);
      throw new AppError('backpressure', 'The inbound queue is full; retry later', { headers: { 'retry-after': retryAfter } });
    }
  }

  /** Keeps the verified call once; a redelivery is acknowledged without a second copy. */
  private async accept(channel: ChannelName, eventKey: string, raw: Buffer, meta: Record<string, unknown>): Promise<Record<string, unknown>> {
    const existing = await this.repo.findEventByKey(channel, eventKey);
    if (existing) return { ok: true, duplicate: true };
    await this.backpressure(channel);
    const row = await this.repo.insertEvent({ channel, eventKey, body: raw.toString('utf8'), meta });
    if (!row) return { ok: true, duplicate: true };
    this.metrics.accepted(channel);
    // The row is the durable record; if this enqueue is lost the stranded-event sweep runs it.
    await this.queue.send('channels.inbound', { eventId: row.id }, { singletonKey: row.id }).catch(() => undefined);
    return { ok: true };
  }
}

/**
 * A vendor's id as part of an event key: a plain string or number, else undefined and the body's
 * hash stands in (an object, or text the database refuses: a NUL, a lone surrogate, is not an id).
 */
function keyPart(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.length > 0 && value.length <= 500 && isStorableText(value)) return value;
  return undefined;
}

/** A refused call: one `security.webhook_signature_invalid` line (channel and reason, never the signature), then 401. */
function invalidSignature(channel: ChannelName, reason: string): AppError {
  securityEvent('webhook_signature_invalid', { channel, reason });
  return AppError.unauthorized('Missing or invalid webhook signature');
}
