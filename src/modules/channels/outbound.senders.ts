import type { ChannelName } from '../../contracts/channels.js';
import { systemNow } from '../../platform/clock/clock.js';
import type { ChannelsConfig } from './channels.config.js';
import { safeEqual } from '../../platform/crypto/crypto.js';
import type { MailService } from '../../platform/mail/mail.service.js';
import { composeMail } from '../../platform/mail/mail-template.js';

/** One reply to deliver: the outbox row's content and target, with the integration's secrets. */
export interface OutboundSend {
  outboundId: string;
  content: string;
  target: Record<string, unknown>;
  secrets: Record<string, string>;
}

/** The vendor APIs (configuration), the platform's messaging-a token, and how long one call may take. */
export type SenderConfig = ChannelsConfig['apis'] & { messagingAAuthToken?: string; requestTimeoutMs: number };

export type Sender = (send: OutboundSend) => Promise<{ externalId: string | null }>;

/** spec 8: a messaging-a reply is cut to 4096 characters. */
export const MESSAGING_A_MAX_CHARS = 4096;

/** The text cut to `max` UTF-16 units, one fewer where the cut would split a surrogate pair: never half a character (sent as U+FFFD). */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** messaging-a's REST API host (the vendor's documented media URLs are on it too). */
export const MESSAGING_A_API_ORIGIN = 'https://api.twilio.com';

/** The Bot Framework's scope for a connector token (client credentials), unless ENTERPRISE_CHAT_TOKEN_SCOPE says otherwise. */
export const CONNECTOR_TOKEN_SCOPE = 'https://api.botframework.com/.default';

/**
 * Hosts, besides the verified serviceUrl's origin, that serve enterprise-chat attachments behind
 * the connector token (inline images: the connector's own attachment views). https only.
 */
const CONNECTOR_ATTACHMENT_HOSTS = ['smba.trafficmanager.net', '.botframework.com', '.asm.skype.com'];

export function isConnectorAttachmentHost(url: string): boolean {
  try {
    const u = new URL(url);
    const host = u.hostname.toLowerCase();
    return u.protocol === 'https:' && !u.port && CONNECTOR_ATTACHMENT_HOSTS.some((h) => (h.startsWith('.') ? host.endsWith(h) : host === h));
  } catch {
    return false;
  }
}

export interface MessagingAAccount {
  accountSid: string;
  authToken: string;
}

/**
 * The messaging-a account a message came in on, whose credentials fetch its media and send its
 * reply: the org's own (the integration's `accountSid` / `authToken`, when the target says so and
 * names that account), else the platform's (the target's `accountSid`, as the signed inbound call
 * gave it, with MESSAGING_A_AUTH_TOKEN). A target from before accounts were recorded uses the
 * integration's secrets.
 */
export function messagingAAccount(target: Record<string, unknown>, secrets: Record<string, string>, platformToken: string | undefined): MessagingAAccount | undefined {
  const accountSid = typeof target.accountSid === 'string' ? target.accountSid : undefined;
  if (target.ownAccount === true || !accountSid) {
    if (!secrets.accountSid || !secrets.authToken || (accountSid && !safeEqual(secrets.accountSid, accountSid))) return undefined;
    return { accountSid: secrets.accountSid, authToken: secrets.authToken };
  }
  return platformToken ? { accountSid, authToken: platformToken } : undefined;
}

export function basicAuth(account: MessagingAAccount): string {
  return `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString('base64')}`;
}

class SendError extends Error {}

function need(value: string | undefined, what: string): string {
  if (!value) throw new SendError(`${what} is not configured`);
  return value;
}

async function post(url: string, init: { headers: Record<string, string>; body: string; idempotencyKey?: string }, timeoutMs: number): Promise<unknown> {
  // The outbox row's id: a vendor that honours idempotency keys drops a resend after a crash.
  const headers = init.idempotencyKey ? { ...init.headers, 'idempotency-key': init.idempotencyKey } : init.headers;
  const res = await fetch(url, { method: 'POST', headers, body: init.body, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  if (!res.ok) throw new SendError(`${new URL(url).host} answered ${res.status}`);
  try {
    return text ? (JSON.parse(text) as unknown) : {};
  } catch {
    return {};
  }
}

/**
 * A client-credentials token for enterprise-chat (the connector token), cached until shortly before
 * it expires. Callers that ask while a token is being fetched share that one request.
 */
export class TokenCache {
  private token?: { value: string; expiresAt: number };
  private pending?: Promise<string>;

  constructor(private readonly config: SenderConfig) {}

  get(): Promise<string> {
    if (this.token && this.token.expiresAt > systemNow().getTime() + 60_000) return Promise.resolve(this.token.value);
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async fetchToken(): Promise<string> {
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: need(this.config.enterpriseChatAppId, 'ENTERPRISE_CHAT_APP_ID'),
      client_secret: need(this.config.enterpriseChatAppPassword, 'ENTERPRISE_CHAT_APP_PASSWORD'),
      scope: this.config.enterpriseChatTokenScope ?? CONNECTOR_TOKEN_SCOPE,
    });
    const answer = (await post(
      need(this.config.enterpriseChatTokenUrl, 'ENTERPRISE_CHAT_TOKEN_URL'),
      { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() },
      this.config.requestTimeoutMs,
    )) as {
      access_token?: string;
      expires_in?: number;
    };
    if (!answer.access_token) throw new SendError('the token endpoint gave no access_token');
    this.token = { value: answer.access_token, expiresAt: systemNow().getTime() + (answer.expires_in ?? 3600) * 1000 };
    return this.token.value;
  }
}

/** The Message-ID of an outgoing mail: its outbox row's id at the sending alias's domain (a key of its conversation). */
export function emailMessageId(outboundId: string, from: unknown): string {
  return `<${outboundId}@${String(from).split('@')[1] || 'workspace.invalid'}>`;
}

/**
 * An email reply: written to the mail service's outbox in the caller's transaction (when there is
 * one), from the alias, threaded on the client's mail; its Message-ID is the external id.
 */
export async function sendEmailReply(mail: MailService, { outboundId, content, target }: Pick<OutboundSend, 'outboundId' | 'content' | 'target'>): Promise<{ externalId: string }> {
  const references = Array.isArray(target.references) ? target.references.filter((id): id is string => typeof id === 'string') : [];
  const messageId = emailMessageId(outboundId, target.from);
  await mail.send(
    composeMail({
      to: String(target.to),
      from: String(target.from),
      subject: replySubject(target.subject),
      paragraphs: content.split(/\r?\n\r?\n/),
      headers: { 'Message-ID': messageId, ...(target.messageId ? { 'In-Reply-To': String(target.messageId) } : {}), ...(references.length ? { References: references.join(' ') } : {}) },
    }),
  );
  return { externalId: messageId };
}

/** A reply's subject: the client's subject with exactly one `Re:` (however many it had). */
export function replySubject(subject: unknown): string {
  const base = typeof subject === 'string' ? subject.replace(/^(\s*re(\[\d+\])?\s*:)+/i, '').trim() : '';
  return base ? `Re: ${base}` : 'Re: your message';
}

/**
 * One HTTP sender per channel, to the vendor API at a configurable base URL. Each is wrapped in
 * a circuit breaker by the dispatcher. Email leaves through the mail service (SMTP or outbox).
 */
export function createSenders(config: SenderConfig, mail: MailService, tokens = new TokenCache(config)): Record<ChannelName, Sender> {
  const t = config.requestTimeoutMs;
  return {
    'chat-a': async ({ outboundId, content, target, secrets }) => {
      const answer = (await post(
        `${need(config.chatAApiBaseUrl, 'CHAT_A_API_BASE_URL')}/chat.postMessage`,
        {
          headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${need(secrets.botToken, 'the botToken secret')}` },
          body: JSON.stringify({ channel: target.channel, thread_ts: target.thread_ts, text: content }),
          idempotencyKey: outboundId,
        },
        t,
      )) as { ok?: boolean; ts?: string; error?: string };
      if (answer.ok === false) throw new SendError(`chat-a refused the message: ${answer.error ?? 'unknown error'}`);
      return { externalId: answer.ts ?? null };
    },
    'messaging-a': async ({ outboundId, content, target, secrets }) => {
      const account = messagingAAccount(target, secrets, config.messagingAAuthToken);
      if (!account) throw new SendError('the credentials of the account the message came in on are not configured');
      // From is the address the client wrote to (a pool number, an own number, or whatsapp:+...).
      const form = new URLSearchParams({ To: String(target.to), From: String(target.from), Body: cutText(content, MESSAGING_A_MAX_CHARS) });
      const answer = (await post(
        `${need(config.messagingAApiBaseUrl, 'MESSAGING_A_API_BASE_URL')}/Accounts/${encodeURIComponent(account.accountSid)}/Messages.json`,
        {
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(account) },
          body: form.toString(),
          idempotencyKey: outboundId,
        },
        t,
      )) as { sid?: string };
      return { externalId: answer.sid ?? null };
    },
    'messaging-b': async ({ outboundId, content, target, secrets }) => {
      const replyTo = Number(target.reply_to_message_id);
      const answer = (await post(
        `${need(config.messagingBApiBaseUrl, 'MESSAGING_B_API_BASE_URL')}/bot${need(secrets.botToken, 'the botToken secret')}/sendMessage`,
        {
          headers: { 'content-type': 'application/json' },
          // The Bot API's reply_parameters (reply_to_message_id is deprecated); still sent when that message is gone.
          body: JSON.stringify({
            chat_id: target.chat_id,
            text: content,
            ...(Number.isInteger(replyTo) && replyTo > 0 ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}),
          }),
          idempotencyKey: outboundId,
        },
        t,
      )) as { ok?: boolean; result?: { message_id?: number } };
      if (answer.ok === false) throw new SendError('messaging-b refused the message');
      return { externalId: answer.result?.message_id !== undefined ? String(answer.result.message_id) : null };
    },
    email: (send) => sendEmailReply(mail, send),
    'enterprise-chat': async ({ outboundId, content, target }) => {
      const serviceUrl = String(need(typeof target.serviceUrl === 'string' ? target.serviceUrl : undefined, 'the activity serviceUrl')).replace(/\/+$/, '');
      const conversationId = encodeURIComponent(String(target.conversationId));
      const replyToId = encodeURIComponent(String(target.replyToId));
      const answer = (await post(
        `${serviceUrl}/v3/conversations/${conversationId}/activities/${replyToId}`,
        {
          headers: { 'content-type': 'application/json', authorization: `Bearer ${await tokens.get()}` },
          // A reply Activity: from the bot, into the conversation, answering the client's activity.
          body: JSON.stringify({
            type: 'message',
            text: content,
            textFormat: 'markdown',
            replyToId: target.replyToId,
            conversation: { id: target.conversationId },
            ...(typeof target.botId === 'string' ? { from: { id: target.botId } } : {}),
          }),
          idempotencyKey: outboundId,
        },
        t,
      )) as { id?: string };
      return { externalId: answer.id ?? null };
    },
  };
}
