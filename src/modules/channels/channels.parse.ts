import type { ChannelName } from '../../contracts/channels.js';
import { storableText } from '../../platform/db/storable-text.js';

/**
 * What the worker needs of one verified inbound call, whatever its channel. Parsing is pure: the
 * routing rules (engagement, org resolution) act on this shape.
 */
export interface InboundMessage {
  channel: ChannelName;
  /** Identity of the message itself (a vendor may deliver one message as two events). */
  messageKey: string;
  /** The session key: messages with one key share one conversation. */
  threadKey: string;
  text: string;
  sender: { id: string; name: string | null };
  /** A direct message, or the bot mentioned: opens (or reopens) an engagement. */
  addressed: boolean;
  /** `[done]`: completes the engagement; no turn. */
  completes: boolean;
  /** Where the reply goes. */
  replyTarget: Record<string, unknown>;
  attachments: InboundAttachment[];
  subject: string | null;
}

export interface InboundAttachment {
  name: string;
  contentType: string;
  /** Fetched by the worker into the artifacts storage. */
  url?: string;
  /** A vendor file id the worker resolves through the vendor's API (messaging-b `getFile`). */
  fileId?: string;
  data?: Buffer;
  /** The URL carries its own authorization (a pre-authenticated download link): no credential goes with it. */
  preauthenticated?: boolean;
}

/** Either a message to route, or why the call carries none (no turn). */
export type ParseResult = { ok: true; message: InboundMessage } | { ok: false; ignore: string };

const ignore = (reason: string): ParseResult => ({ ok: false, ignore: reason });
const DONE = /^\s*\[done\]\s*$/i;

/** A stored JSON webhook body, every string in it made storable (a vendor's payload is not always clean Unicode). */
export function parseBody(raw: string): unknown {
  return JSON.parse(raw, (_key, v: unknown) => (typeof v === 'string' ? storableText(v) : v));
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** A list field: absent is empty; any other shape throws (the caller quarantines it `malformed_body`). */
function listOf<T>(v: T[] | undefined): T[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new TypeError('a list field of another shape');
  return v;
}

// chat-a

export interface ChatAEnvelope {
  type?: string;
  challenge?: string;
  team_id?: string;
  event_id?: string;
  event?: Record<string, unknown>;
  authorizations?: Array<{ user_id?: string }>;
}

/** The bot's own user id: configured on the integration, else named by the event's authorizations. */
export function chatABotUser(envelope: ChatAEnvelope, configured: unknown): string | undefined {
  return str(configured) ?? str(envelope.authorizations?.[0]?.user_id);
}

export function parseChatA(envelope: ChatAEnvelope, botUserId: string | undefined): ParseResult {
  const e = envelope.event ?? {};
  const type = str(e.type);
  if (envelope.type !== 'event_callback' || (type !== 'message' && type !== 'app_mention')) return ignore('unsupported_event');
  if (str(e.subtype) && e.subtype !== 'file_share') return ignore('unsupported_event');
  if (str(e.bot_id) || (botUserId && e.user === botUserId)) return ignore('bot_authored');
  const channel = str(e.channel);
  const ts = str(e.ts);
  const user = str(e.user);
  if (!channel || !ts || !user) return ignore('unsupported_event');
  const raw = str(e.text) ?? '';
  const direct = e.channel_type === 'im';
  const mentioned = type === 'app_mention' || (botUserId !== undefined && raw.includes(`<@${botUserId}>`));
  const threadTs = str(e.thread_ts) ?? ts;
  const text = raw.replace(/<@[A-Z0-9]+(\|[^>]*)?>/g, '').trim();
  const files = Array.isArray(e.files) ? (e.files as Array<Record<string, unknown>>) : [];
  return {
    ok: true,
    message: {
      channel: 'chat-a',
      messageKey: `${channel}:${ts}`,
      threadKey: direct ? `im:${channel}` : `${channel}:${threadTs}`,
      text,
      sender: { id: user, name: null },
      addressed: direct || mentioned,
      completes: DONE.test(text),
      replyTarget: direct ? { channel } : { channel, thread_ts: threadTs },
      attachments: files.flatMap((f) => (str(f.url_private) ? [{ name: str(f.name) ?? 'file', contentType: str(f.mimetype) ?? 'application/octet-stream', url: str(f.url_private) }] : [])),
      subject: null,
    },
  };
}

// messaging-a

/**
 * The vendor's incoming-message webhook (SMS, MMS and WhatsApp): `From` / `To` are E.164 numbers,
 * or `whatsapp:+<E.164>` for WhatsApp, kept as given (the thread, the whitelist and the reply's
 * From use that address); WhatsApp adds the sender's `ProfileName`. The reply target names the
 * account the message came in on (`accountSid`): its credentials send the reply.
 */
export function parseMessagingA(params: Record<string, string>): ParseResult {
  const sid = params.MessageSid ?? params.SmsMessageSid;
  const from = params.From;
  const to = params.To;
  if (!sid || !from || !to) return ignore('unsupported_event');
  const media = Number(params.NumMedia ?? '0');
  const attachments: InboundAttachment[] = [];
  for (let i = 0; i < Math.min(Number.isFinite(media) ? media : 0, 10); i++) {
    const url = params[`MediaUrl${i}`];
    if (url) attachments.push({ name: `media-${i}`, contentType: params[`MediaContentType${i}`] ?? 'application/octet-stream', url });
  }
  const text = (params.Body ?? '').trim();
  return {
    ok: true,
    message: {
      channel: 'messaging-a',
      messageKey: sid,
      threadKey: from,
      text,
      sender: { id: from, name: str(params.ProfileName) ?? null },
      addressed: true,
      completes: false,
      replyTarget: { to: from, from: to, ...(str(params.AccountSid) ? { accountSid: params.AccountSid } : {}) },
      attachments,
      subject: null,
    },
  };
}

// messaging-b

export interface MessagingBUpdate {
  update_id?: number;
  message?: {
    message_id?: number;
    text?: string;
    caption?: string;
    chat?: { id?: number | string; type?: string };
    from?: { id?: number | string; is_bot?: boolean; first_name?: string; username?: string };
    reply_to_message?: { from?: { is_bot?: boolean } };
    document?: { file_id?: unknown; file_name?: unknown; mime_type?: unknown };
    /** One photo in several sizes, the largest last. */
    photo?: Array<{ file_id?: unknown }>;
  };
}

/** A document, or the largest size of a photo: fetched by file id through the Bot API. */
function messagingBFiles(m: NonNullable<MessagingBUpdate['message']>): InboundAttachment[] {
  const files: InboundAttachment[] = [];
  const doc = m.document;
  if (doc && str(doc.file_id)) files.push({ name: str(doc.file_name) ?? 'document', contentType: str(doc.mime_type) ?? 'application/octet-stream', fileId: doc.file_id as string });
  const photo = Array.isArray(m.photo) ? m.photo[m.photo.length - 1] : undefined;
  if (photo && str(photo.file_id)) files.push({ name: 'photo.jpg', contentType: 'image/jpeg', fileId: photo.file_id as string });
  return files;
}

export function parseMessagingB(update: MessagingBUpdate, botUsername: string | undefined): ParseResult {
  const m = update.message;
  if (!m || m.chat?.id === undefined || m.message_id === undefined) return ignore('unsupported_event');
  if (m.from?.is_bot) return ignore('bot_authored');
  const raw = str(m.text) ?? str(m.caption) ?? '';
  const chatId = String(m.chat.id);
  const direct = m.chat.type === 'private';
  const mentioned = (botUsername !== undefined && raw.includes(`@${botUsername}`)) || m.reply_to_message?.from?.is_bot === true;
  const text = (botUsername ? raw.split(`@${botUsername}`).join('') : raw).trim();
  return {
    ok: true,
    message: {
      channel: 'messaging-b',
      messageKey: `${chatId}:${m.message_id}`,
      threadKey: chatId,
      text,
      sender: { id: String(m.from?.id ?? chatId), name: str(m.from?.first_name) ?? null },
      addressed: direct || mentioned,
      completes: DONE.test(text),
      replyTarget: { chat_id: chatId, reply_to_message_id: m.message_id },
      attachments: messagingBFiles(m),
      subject: null,
    },
  };
}

// enterprise-chat

export interface EnterpriseChatActivity {
  type?: string;
  id?: string;
  serviceUrl?: string;
  text?: string;
  from?: { id?: string; name?: string; role?: string };
  recipient?: { id?: string; name?: string };
  conversation?: { id?: string; conversationType?: string; tenantId?: string };
  channelData?: { tenant?: { id?: string } };
  entities?: Array<{ type?: string; mentioned?: { id?: string; name?: string }; text?: string }>;
  attachments?: Array<{ contentType?: string; contentUrl?: string; name?: string; content?: unknown }>;
  replyToId?: string;
}

/** A file shared in a chat or channel: a pre-authenticated download link and the file's type. */
const FILE_DOWNLOAD_INFO = 'application/vnd.microsoft.teams.file.download.info';

/** Media types of the file types the vendor names in a file's `fileType` (the extension). */
const FILE_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  zip: 'application/zip',
};

/**
 * The files of an activity: shared files (file download info: its `downloadUrl`, which carries
 * its own authorization), inline images and other media by `contentUrl` (the connector token's
 * hosts). The `text/html` copy of the message body and cards (other vendor types) are no files.
 */
function enterpriseChatFiles(attachments: EnterpriseChatActivity['attachments']): InboundAttachment[] {
  const files: InboundAttachment[] = [];
  for (const a of listOf(attachments)) {
    const type = str(a?.contentType) ?? '';
    if (type === FILE_DOWNLOAD_INFO) {
      const content = (typeof a.content === 'object' && a.content !== null ? a.content : {}) as { downloadUrl?: unknown; fileType?: unknown };
      const fileType = (str(content.fileType) ?? '').toLowerCase();
      const url = str(content.downloadUrl);
      if (url) files.push({ name: str(a.name) ?? `file${fileType ? `.${fileType}` : ''}`, contentType: FILE_TYPES[fileType] ?? 'application/octet-stream', url, preauthenticated: true });
    } else if (type === 'text/html' || type.startsWith('application/vnd.')) {
      continue;
    } else if (str(a?.contentUrl)) {
      files.push({ name: str(a.name) ?? (type.startsWith('image/') ? 'image' : 'attachment'), contentType: type || 'application/octet-stream', url: a.contentUrl! });
    }
  }
  return files;
}

/**
 * The text the Specialist reads: the bot's own `<at>` mention (named by a mention entity of the
 * bot) removed; other people's mentions kept as their names.
 */
function enterpriseChatText(activity: EnterpriseChatActivity, botId: string | undefined): string {
  let text = activity.text ?? '';
  for (const e of listOf(activity.entities)) {
    if (e?.type === 'mention' && botId !== undefined && e.mentioned?.id === botId && str(e.text)) text = text.split(e.text!).join(' ');
  }
  return text
    .replace(/<at>([^<]*)<\/at>/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

const CONVERSATION_TYPES = new Set(['personal', 'groupChat', 'channel']);

/** The tenant the activity belongs to (bound explicitly to one org). */
export function enterpriseChatTenant(activity: EnterpriseChatActivity): string | undefined {
  return str(activity.conversation?.tenantId) ?? str(activity.channelData?.tenant?.id);
}

/**
 * Spec 4.8 rules 1-4: the thread key per conversation type (a channel thread's conversation id
 * carries its root message, so two threads of one channel are two sessions); no turn for
 * bot-authored or unsupported activities; the bot's mention stripped; attachments by reference.
 */
export function parseEnterpriseChat(activity: EnterpriseChatActivity): ParseResult {
  if (activity.type !== 'message') return ignore('unsupported_activity');
  const conversationId = str(activity.conversation?.id);
  const type = str(activity.conversation?.conversationType) ?? 'personal';
  const id = str(activity.id);
  const botId = str(activity.recipient?.id);
  if (!conversationId || !id || !CONVERSATION_TYPES.has(type)) return ignore('unsupported_activity');
  if (activity.from?.role === 'bot' || (botId !== undefined && activity.from?.id === botId)) return ignore('bot_authored');
  const mentioned = listOf(activity.entities).some((e) => e?.type === 'mention' && botId !== undefined && e.mentioned?.id === botId);
  const text = enterpriseChatText(activity, botId);
  const attachments = enterpriseChatFiles(activity.attachments);
  return {
    ok: true,
    message: {
      channel: 'enterprise-chat',
      messageKey: `${conversationId}:${id}`,
      threadKey: `${type}:${conversationId}`,
      text,
      sender: { id: str(activity.from?.id) ?? 'unknown', name: str(activity.from?.name) ?? null },
      addressed: type === 'personal' || mentioned,
      completes: DONE.test(text),
      replyTarget: { serviceUrl: activity.serviceUrl, conversationId, replyToId: id, botId },
      attachments,
      subject: null,
    },
  };
}
