import type { ChannelName } from '../../contracts/channels.js';
import type { AppConfig } from '../../platform/config/config.js';
import type { MailService } from '../../platform/mail/mail.service.js';
import { composeMail } from '../../platform/mail/mail-template.js';

/** One reply to deliver: the outbox row's content and target, with the integration's secrets. */
export interface OutboundSend {
  outboundId: string;
  content: string;
  target: Record<string, unknown>;
  secrets: Record<string, string>;
}

/** The vendor APIs (configuration) and how long one call may take. */
export type SenderConfig = AppConfig['channelApis'] & { requestTimeoutMs: number };

export type Sender = (send: OutboundSend) => Promise<{ externalId: string | null }>;

/** spec 8: a messaging-a reply is cut to 4096 characters. */
export const MESSAGING_A_MAX_CHARS = 4096;

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

/** A client-credentials token for enterprise-chat (the connector token), cached until shortly before it expires. */
export class TokenCache {
  private token?: { value: string; expiresAt: number };

  constructor(private readonly config: SenderConfig) {}

  async get(): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now() + 60_000) return this.token.value;
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: need(this.config.enterpriseChatAppId, 'ENTERPRISE_CHAT_APP_ID'),
      client_secret: need(this.config.enterpriseChatAppPassword, 'ENTERPRISE_CHAT_APP_PASSWORD'),
      ...(this.config.enterpriseChatTokenScope ? { scope: this.config.enterpriseChatTokenScope } : {}),
    });
    const answer = (await post(need(this.config.enterpriseChatTokenUrl, 'ENTERPRISE_CHAT_TOKEN_URL'), { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() }, this.config.requestTimeoutMs)) as {
      access_token?: string;
      expires_in?: number;
    };
    if (!answer.access_token) throw new SendError('the token endpoint gave no access_token');
    this.token = { value: answer.access_token, expiresAt: Date.now() + (answer.expires_in ?? 3600) * 1000 };
    return this.token.value;
  }
}

/**
 * One HTTP sender per channel, to the vendor API at a configurable base URL. Each is wrapped in
 * a circuit breaker by the dispatcher. Email leaves through the mail service (SMTP or outbox).
 */
export function createSenders(config: SenderConfig, mail: MailService, tokens = new TokenCache(config)): Record<ChannelName, Sender> {
  const t = config.requestTimeoutMs;
  return {
    'chat-a': async ({ outboundId, content, target, secrets }) => {
      const answer = (await post(`${need(config.chatAApiBaseUrl, 'CHAT_A_API_BASE_URL')}/chat.postMessage`, {
        headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${need(secrets.botToken, 'the botToken secret')}` },
        body: JSON.stringify({ channel: target.channel, thread_ts: target.thread_ts, text: content }),
        idempotencyKey: outboundId,
      }, t)) as { ok?: boolean; ts?: string; error?: string };
      if (answer.ok === false) throw new SendError(`chat-a refused the message: ${answer.error ?? 'unknown error'}`);
      return { externalId: answer.ts ?? null };
    },
    'messaging-a': async ({ outboundId, content, target, secrets }) => {
      const accountSid = need(secrets.accountSid, 'the accountSid secret');
      const form = new URLSearchParams({ To: String(target.to), From: String(target.from), Body: content.slice(0, MESSAGING_A_MAX_CHARS) });
      const answer = (await post(`${need(config.messagingAApiBaseUrl, 'MESSAGING_A_API_BASE_URL')}/Accounts/${encodeURIComponent(accountSid)}/Messages.json`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${accountSid}:${need(secrets.authToken, 'the authToken secret')}`).toString('base64')}` },
        body: form.toString(),
        idempotencyKey: outboundId,
      }, t)) as { sid?: string };
      return { externalId: answer.sid ?? null };
    },
    'messaging-b': async ({ outboundId, content, target, secrets }) => {
      const replyTo = Number(target.reply_to_message_id);
      const answer = (await post(`${need(config.messagingBApiBaseUrl, 'MESSAGING_B_API_BASE_URL')}/bot${need(secrets.botToken, 'the botToken secret')}/sendMessage`, {
        headers: { 'content-type': 'application/json' },
        // The Bot API's reply_parameters (reply_to_message_id is deprecated); still sent when that message is gone.
        body: JSON.stringify({ chat_id: target.chat_id, text: content, ...(Number.isInteger(replyTo) && replyTo > 0 ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}) }),
        idempotencyKey: outboundId,
      }, t)) as { ok?: boolean; result?: { message_id?: number } };
      if (answer.ok === false) throw new SendError('messaging-b refused the message');
      return { externalId: answer.result?.message_id !== undefined ? String(answer.result.message_id) : null };
    },
    email: async ({ outboundId, content, target }) => {
      const subject = typeof target.subject === 'string' && target.subject ? (/^re:/i.test(target.subject) ? target.subject : `Re: ${target.subject}`) : 'Re: your message';
      const references = Array.isArray(target.references) ? (target.references as string[]) : [];
      const messageId = `<${outboundId}@${String(target.from).split('@')[1] ?? 'workspace.invalid'}>`;
      await mail.send(
        composeMail({
          to: String(target.to),
          from: String(target.from),
          subject,
          paragraphs: content.split(/\r?\n\r?\n/),
          headers: { 'Message-ID': messageId, ...(target.messageId ? { 'In-Reply-To': String(target.messageId) } : {}), ...(references.length ? { References: references.join(' ') } : {}) },
        }),
      );
      return { externalId: messageId };
    },
    'enterprise-chat': async ({ outboundId, content, target }) => {
      const serviceUrl = String(need(typeof target.serviceUrl === 'string' ? target.serviceUrl : undefined, 'the activity serviceUrl')).replace(/\/+$/, '');
      const conversationId = encodeURIComponent(String(target.conversationId));
      const replyToId = encodeURIComponent(String(target.replyToId));
      const answer = (await post(`${serviceUrl}/v3/conversations/${conversationId}/activities/${replyToId}`, {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await tokens.get()}` },
        body: JSON.stringify({ type: 'message', text: content, replyToId: target.replyToId }),
        idempotencyKey: outboundId,
      }, t)) as { id?: string };
      return { externalId: answer.id ?? null };
    },
  };
}
