import { Inject, Injectable } from '@nestjs/common';
import type { ChannelName } from '../../contracts/channels.js';
import { Clock, systemNow } from '../../platform/clock/clock.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { channelsConfig, type ChannelsConfig } from './channels.config.js';
import { safeEqual, sha256Hex } from '../../platform/crypto/crypto.js';
import { sql, type SQL } from 'drizzle-orm';
import { DbService } from '../../platform/db/db.service.js';
import { GroupCommit } from '../../platform/db/group-commit.js';
import { isStorableText } from '../../platform/db/storable-text.js';
import { AppError } from '../../platform/errors/app-error.js';
import { securityEvent } from '../../platform/observability/security-log.js';
import { QueueService } from '../../platform/queue/queue.service.js';
import { RateLimitService, rateLimitError, rateLimitHeaders, type LimitResult, type Limiter } from '../../platform/rate-limit/rate-limit.service.js';
import { ChannelMetrics } from './channel-metrics.js';
import { ADMISSION_BATCH, ADMISSION_STRIPED_ROOM, ChannelsRepository, type Admission } from './channels.repository.js';
import type { ChatAAnswer, WebhookAccepted } from './channels.schemas.js';
import { MAX_SIGNATURE_AGE_S, formParams, header, verifyChatA, verifyEmailInbound, verifyMailgun, verifyMessagingA } from './channels.verify.js';
import { EnterpriseChatAuth } from './enterprise-chat.auth.js';
import type { IntegrationRow } from './channels.tables.js';
import { IngressLoad } from './ingress-load.js';
import { IntegrationsService, ownNumbers } from './integrations.service.js';
import './channels.jobs.js';

export interface WebhookCall {
  rawBody: Buffer | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** Path and query as received, for the messaging-a signature. */
  url: string;
}

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
  /** The backpressured routes' admissions: concurrent calls are kept together, one batch at a time. */
  private readonly admissions = new GroupCommit<AdmissionValues, Admission>((batch) => this.admitBelowDepth(batch), ADMISSION_BATCH);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(channelsConfig.token) private readonly channels: ChannelsConfig,
    private readonly repo: ChannelsRepository,
    private readonly integrations: IntegrationsService,
    private readonly queue: QueueService,
    rateLimits: RateLimitService,
    private readonly metrics: ChannelMetrics,
    clock: Clock,
    private readonly dbService: DbService,
    private readonly load: IngressLoad,
  ) {
    // Spec 8: 1000 requests per 60 000 ms window, per workspace (CHAT_A_WEBHOOK_THROTTLE_PER_MINUTE).
    this.chatAThrottle = rateLimits.limiter({ name: 'chat-a-webhook', points: this.channels.limits.chatAWebhookPerMinute, durationS: 60 });
    this.mailgunTokens = rateLimits.limiter(MAILGUN_TOKENS);
    const ch = this.channels.inbound;
    this.enterpriseChatAuth = new EnterpriseChatAuth({ appId: ch.enterpriseChatAppId, openIdMetadataUrl: ch.enterpriseChatOpenIdMetadataUrl, issuers: ch.enterpriseChatIssuers }, undefined, () =>
      clock.now(),
    );
  }

  /** chat-a: the answer, and the throttle's headers (spec 7.1) when the call spent a point of it. */
  async chatA(call: WebhookCall): Promise<{ body: ChatAAnswer; headers: Record<string, string> }> {
    const raw = this.body(call, 'chat-a');
    if (!verifyChatA(this.channels.inbound.chatASigningSecret, call.headers, raw, Math.floor(systemNow().getTime() / 1000))) throw invalidSignature('chat-a', 'signature');
    const envelope = json<{ type?: string; challenge?: string; team_id?: string; event_id?: string }>(raw);
    if (envelope.type === 'url_verification') return { body: { challenge: String(envelope.challenge ?? '') }, headers: {} };
    const workspace = keyPart(envelope.team_id) ?? 'unknown';
    const { body, spent } = await this.admit('chat-a', `${workspace}:${keyPart(envelope.event_id) ?? sha256Hex(raw)}`, raw, { workspace }, { limiter: this.chatAThrottle, key: workspace });
    return { body, headers: spent ? rateLimitHeaders(spent) : {} };
  }

  /**
   * messaging-a: a message to a pool number is the platform's account (signed with
   * MESSAGING_A_AUTH_TOKEN); any other `To` must be a number of the org's own account that the
   * request's `AccountSid` names through its binding, signed with that account's auth token.
   */
  async messagingA(call: WebhookCall): Promise<WebhookAccepted> {
    const raw = this.body(call, 'messaging-a');
    const params = formParams(raw);
    const fullUrl = new URL(this.config.publicUrl).origin + call.url;
    const signature = header(call.headers, 'x-messaging-a-signature');
    const { To: to, AccountSid: accountSid } = params;
    if (!to || !accountSid) throw invalidSignature('messaging-a', 'missing_account');
    let meta: Record<string, unknown> = {};
    if (this.channels.inbound.messagingANumberPool.includes(to)) {
      if (!verifyMessagingA(this.channels.inbound.messagingAAuthToken, signature, fullUrl, params)) throw invalidSignature('messaging-a', 'signature');
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

  async messagingB(call: WebhookCall): Promise<WebhookAccepted> {
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

  async email(call: WebhookCall): Promise<WebhookAccepted> {
    const raw = this.body(call, 'email');
    if (!verifyEmailInbound(this.channels.inbound.emailInboundSigningSecret, header(call.headers, 'x-email-signature'), raw)) throw invalidSignature('email', 'signature');
    const body = json<{ rawMessage?: unknown }>(raw);
    if (typeof body.rawMessage !== 'string' || body.rawMessage.length === 0)
      throw new AppError('validation_failed', 'Invalid body', { details: [{ field: 'rawMessage', message: 'Required: the base64 RFC 822 message' }] });
    return this.acceptMail(Buffer.from(body.rawMessage, 'base64'), raw);
  }

  /**
   * Mailgun's own door: a Route's forward() to a URL ending in `mime` posts the raw message
   * (`body-mime`) with `recipient`, `timestamp`, `token` and `signature`. Verified Mailgun's way,
   * then kept like a `{rawMessage}` call (plus the envelope recipient) for the same worker.
   */
  async mailgun(form: Record<string, string>): Promise<WebhookAccepted> {
    if (!verifyMailgun(this.channels.inbound.mailgunWebhookSigningKey, form, Math.floor(systemNow().getTime() / 1000))) throw invalidSignature('email', 'mailgun_signature');
    // The signature covers neither the message nor the recipient: a replayed token could carry another mail.
    if (!(await this.mailgunTokens.consume(sha256Hex(form.token!))).allowed) throw invalidSignature('email', 'mailgun_token_replayed');
    const mime = form['body-mime'];
    if (!mime) throw new AppError('validation_failed', 'Invalid body', { details: [{ field: 'body-mime', message: 'Required: the raw MIME message (forward to a URL ending in mime)' }] });
    const message = Buffer.from(mime, 'utf8');
    const stored = { rawMessage: message.toString('base64'), ...(form.recipient ? { recipient: form.recipient } : {}) };
    return this.acceptMail(message, Buffer.from(JSON.stringify(stored)));
  }

  async enterpriseChat(call: WebhookCall): Promise<WebhookAccepted> {
    const raw = this.body(call, 'enterprise-chat');
    const activity = jsonOrNothing<{ id?: string; serviceUrl?: unknown; channelId?: unknown; conversation?: { id?: string } }>(raw) ?? {};
    const verdict = await this.enterpriseChatAuth.verify(header(call.headers, 'authorization'), activity);
    if (!verdict.ok) throw invalidSignature('enterprise-chat', verdict.reason);
    // The reply goes to the serviceUrl the token vouches for, never to one the body names alone.
    return this.accept('enterprise-chat', `${keyPart(activity.conversation?.id) ?? ''}:${keyPart(activity.id) ?? sha256Hex(raw)}`, raw, { issuer: verdict.claims.iss, serviceUrl: verdict.serviceUrl });
  }

  /** One mail, whichever door it came through: its Message-ID is the event key, so a redelivery is one event. */
  private acceptMail(message: Buffer, stored: Buffer): Promise<WebhookAccepted> {
    const head =
      message
        .subarray(0, 64 * 1024)
        .toString('utf8')
        .split(/\r?\n\r?\n/)[0] ?? '';
    const messageId = /^message-id:\s*(<[^>]+>)/im.exec(head)?.[1];
    return this.accept('email', keyPart(messageId) ?? sha256Hex(message), stored, {});
  }

  private body(call: WebhookCall, channel: ChannelName): Buffer {
    // No body means nothing to verify: refuse like an unsigned call.
    if (!call.rawBody || call.rawBody.length === 0) throw invalidSignature(channel, 'empty_body');
    return call.rawBody;
  }

  /**
   * Keeps the verified call once; a redelivery is acknowledged without a second copy. A throttle
   * (chat-a's) is spent only on an event not seen before: a point is taken before the insert and
   * given back when the event was kept before (or a concurrent copy of it won the insert), and a
   * redelivery is acknowledged even once the budget is spent: vendor redeliveries never use it. On
   * the backpressured routes (spec 7.1) the depth check and the insert are one statement inside
   * the queue's admission, so a burst cannot pass `INBOUND_QUEUE_MAX_DEPTH` together; their job
   * follows the commit (a lost send is made up for by the stranded-event sweep). Elsewhere the
   * event's job is written in the same transaction. Either way an accepted event is kept and will be
   * processed.
   */
  private async accept(channel: ChannelName, eventKey: string, raw: Buffer, meta: Record<string, unknown>): Promise<WebhookAccepted> {
    return (await this.admit(channel, eventKey, raw, meta)).body;
  }

  /** `accept`, with what the throttle says after a point was spent (undefined when none was). */
  private async admit(...call: Parameters<IngressService['keep']>): Promise<{ body: WebhookAccepted; spent?: LimitResult }> {
    // Verified: from here the inbound worker gives way to this call (IngressLoad).
    const ended = this.load.begin();
    try {
      const kept = await this.keep(...call);
      ended('answered');
      return kept;
    } catch (err) {
      // A full queue: processing is what makes room, so the worker stops giving way for a while.
      ended(err instanceof AppError && err.code === 'backpressure' ? 'full' : 'answered');
      throw err;
    }
  }

  private async keep(
    channel: ChannelName,
    eventKey: string,
    raw: Buffer,
    meta: Record<string, unknown>,
    throttle?: { limiter: Limiter; key: string },
  ): Promise<{ body: WebhookAccepted; spent?: LimitResult }> {
    const body = raw.toString('utf8');
    // Verified, yet not storable (a NUL byte): refused before the throttle is spent.
    if (!isStorableText(body)) throw new AppError('validation_failed', 'Invalid body', { details: [{ field: 'body', message: 'The body holds a NUL character, which cannot be stored' }] });
    const duplicate = { body: { ok: true, duplicate: true } };
    const spent = throttle ? await throttle.limiter.reserve(throttle.key) : undefined;
    if (spent && !spent.allowed) {
      if (!(await this.repo.unscopedFindEventByKey(channel, eventKey))) throw rateLimitError(spent, `The ${channel} webhook throttle is exceeded`);
      await spent.refund();
      return duplicate;
    }
    const values = { channel, eventKey, body, meta };
    const id = BACKPRESSURED.includes(channel) ? await this.insertBelowDepth(values) : await this.insertAndQueue(values);
    if (!id) {
      await spent?.refund();
      return duplicate;
    }
    this.metrics.accepted(channel);
    return { body: { ok: true }, spent };
  }

  /** Keeps an event (no depth limit) and queues its job, in one transaction; undefined when it was kept before. */
  private insertAndQueue(values: Parameters<ChannelsRepository['unscopedInsertEvent']>[0]): Promise<string | undefined> {
    return this.dbService.transaction(async () => {
      const row = await this.repo.unscopedInsertEvent(values);
      if (row) await this.enqueue(row.id);
      return row?.id;
    });
  }

  /**
   * Spec 7.1: a full inbound queue answers 503 and keeps nothing; counted and inserted as one step,
   * in one round trip. Concurrent calls share that step (a group commit). A redelivery of a kept
   * event is acknowledged even when the queue is full. Undefined: the event was kept before. The
   * event's job is written by the same statement (`inboundJobsFor`).
   */
  private async insertBelowDepth(values: AdmissionValues): Promise<string | undefined> {
    const admission = await this.admissions.submit(values);
    if (admission.kept) return admission.id;
    if (admission.full && !(await this.repo.unscopedFindEventByKey(values.channel, values.eventKey))) {
      throw new AppError('backpressure', 'The inbound queue is full; retry later', { headers: { 'retry-after': String(this.channels.limits.backpressureRetryAfterS) } });
    }
    return undefined;
  }

  /**
   * One batch of admissions. Far below the limit, batches run side by side with other instances'
   * (striped: at most ADMISSION_STRIPED_ROOM events uncommitted at once, so each keeps events only
   * up to that far below the limit); what did not fit then, or everything near the limit, goes one
   * batch at a time against the exact limit.
   */
  private async admitBelowDepth(batch: AdmissionValues[]): Promise<Admission[]> {
    const max = this.channels.limits.inboundQueueMaxDepth;
    const jobs = this.inboundJobsFor;
    const admissions: Array<Admission | undefined> =
      max > 2 * ADMISSION_STRIPED_ROOM ? await this.repo.unscopedAdmitEvents('striped', batch, max - ADMISSION_STRIPED_ROOM, jobs) : batch.map(() => undefined);
    const again = admissions.flatMap((a, i) => (!a || (!a.kept && a.full) ? [i] : []));
    if (again.length > 0) {
      const exact = await this.repo.unscopedAdmitEvents(
        'exclusive',
        again.map((i) => batch[i]!),
        max,
        jobs,
      );
      again.forEach((i, k) => (admissions[i] = exact[k]));
    }
    return admissions as Admission[];
  }

  /** The `channels.inbound` job of each kept event (`{ eventId }`, one per event), written in the admission's statement. */
  private readonly inboundJobsFor = (keptIds: SQL): SQL =>
    this.queue.insertJobsFrom('channels.inbound', sql`select jsonb_build_object('eventId', e.id) as data, e.id::text as singleton_key from (${keptIds}) e`);

  /** The event's job, on the open transaction: it exists if and only if the event is kept. */
  private async enqueue(eventId: string): Promise<void> {
    await this.queue.sendInTransaction('channels.inbound', { eventId }, { singletonKey: eventId });
  }
}

type AdmissionValues = Parameters<ChannelsRepository['unscopedAdmitEvents']>[1][number];

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
