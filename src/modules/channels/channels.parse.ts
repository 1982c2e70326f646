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
  /** A vendor file id the worker resolves through the vendor's API (chat-a `files.info`, messaging-b `getFile`). */
  fileId?: string;
  data?: Buffer;
  /** The URL carries its own authorization (a pre-authenticated download link): no credential goes with it. */
  preauthenticated?: boolean;
  /** The size the vendor declares: a file over the cap is skipped before any download. */
  size?: number;
  /** Why the vendor's message says the file cannot be downloaded (deleted, hidden, external): skipped with this note. */
  unavailable?: string;
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

/** Message subtypes that are a person's new message; every other subtype (edits, deletions, joins, bots) is not. */
const CHAT_A_MESSAGE_SUBTYPES = new Set(['file_share', 'thread_broadcast']);

export function parseChatA(envelope: ChatAEnvelope, botUserId: string | undefined): ParseResult {
  const e = envelope.event ?? {};
  const type = str(e.type);
  if (envelope.type !== 'event_callback' || (type !== 'message' && type !== 'app_mention')) return ignore('unsupported_event');
  if (str(e.bot_id) || e.subtype === 'bot_message' || (botUserId && e.user === botUserId)) return ignore('bot_authored');
  // message_changed, message_deleted, channel_join...: not a new message from a person.
  if (str(e.subtype) && !CHAT_A_MESSAGE_SUBTYPES.has(e.subtype as string)) return ignore('unsupported_event');
  const channel = str(e.channel);
  const ts = str(e.ts);
  const user = str(e.user);
  if (!channel || !ts || !user) return ignore('unsupported_event');
  const raw = str(e.text) ?? '';
  const direct = e.channel_type === 'im';
  const mentioned = type === 'app_mention' || (botUserId !== undefined && raw.includes(`<@${botUserId}>`));
  const threadTs = str(e.thread_ts) ?? ts;
  const text = raw.replace(/<@[A-Z0-9]+(\|[^>]*)?>/g, '').trim();
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
      attachments: Array.isArray(e.files) ? e.files.flatMap(chatAFile) : [],
      subject: null,
    },
  };
}

/**
 * One file of a chat-a message: downloaded from `url_private_download` (else `url_private`) with
 * the bot token. A Slack Connect file (`file_access: 'check_file_info'`) names only its id: the
 * worker asks `files.info` for it. Deleted, over-the-plan-limit and external files are noted, not fetched.
 */
export function chatAFile(file: unknown): InboundAttachment[] {
  if (typeof file !== 'object' || file === null) return [];
  const f = file as Record<string, unknown>;
  const size = typeof f.size === 'number' && f.size > 0 ? { size: f.size } : {};
  const base = { name: str(f.name) ?? str(f.title) ?? str(f.id) ?? 'file', contentType: str(f.mimetype) ?? 'application/octet-stream', ...size };
  if (f.mode === 'tombstone') return [{ ...base, unavailable: 'deleted' }];
  if (f.mode === 'hidden_by_limit') return [{ ...base, unavailable: "hidden by the workspace plan's file limit" }];
  if (f.file_access === 'check_file_info') return str(f.id) ? [{ ...base, fileId: f.id as string }] : [];
  if (f.is_external === true) return [{ ...base, unavailable: `external file${str(f.external_type) ? ` (${f.external_type as string})` : ''}` }];
  const url = str(f.url_private_download) ?? str(f.url_private);
  return [url ? { ...base, url } : { ...base, unavailable: 'no download URL' }];
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

interface MessagingBUser {
  id?: number | string;
  is_bot?: boolean;
  first_name?: string;
  username?: string;
}

interface MessagingBEntity {
  type?: string;
  offset?: number;
  length?: number;
  user?: MessagingBUser;
}

/** The fields of the Bot API's PhotoSize, Document, Voice, Audio, Video, VideoNote, Animation and Sticker read here. */
interface MessagingBFile {
  file_id?: unknown;
  file_name?: unknown;
  mime_type?: unknown;
  file_size?: unknown;
  width?: unknown;
  height?: unknown;
  is_animated?: unknown;
  is_video?: unknown;
}

/** The part of a Bot API Update read here (a vendor `Update` fits it: the contract test checks that). */
export interface MessagingBUpdate {
  update_id?: number;
  message?: {
    message_id?: number;
    text?: string;
    caption?: string;
    entities?: MessagingBEntity[];
    caption_entities?: MessagingBEntity[];
    chat?: { id?: number | string; type?: string };
    from?: MessagingBUser;
    reply_to_message?: { from?: MessagingBUser };
    /** One photo in several sizes. */
    photo?: MessagingBFile[];
    document?: MessagingBFile;
    voice?: MessagingBFile;
    audio?: MessagingBFile;
    video?: MessagingBFile;
    video_note?: MessagingBFile;
    animation?: MessagingBFile;
    sticker?: MessagingBFile;
  };
}

type MessagingBMessage = NonNullable<MessagingBUpdate['message']>;

/** The bot itself: its username (config) and its user id (the numeric part of its token before the colon). */
export interface MessagingBBot {
  username?: string;
  id?: string;
}

/** Each media kind: where it sits in the message, and the name and type it gets when the message gives none. */
const MESSAGING_B_MEDIA: ReadonlyArray<{ field: 'document' | 'voice' | 'audio' | 'video' | 'video_note' | 'animation'; name: string; type: string }> = [
  { field: 'animation', name: 'animation.mp4', type: 'video/mp4' },
  { field: 'document', name: 'document', type: 'application/octet-stream' },
  { field: 'voice', name: 'voice.ogg', type: 'audio/ogg' },
  { field: 'audio', name: 'audio.mp3', type: 'audio/mpeg' },
  { field: 'video', name: 'video.mp4', type: 'video/mp4' },
  { field: 'video_note', name: 'video_note.mp4', type: 'video/mp4' },
];

function messagingBFile(f: MessagingBFile | undefined, name: string, type: string): InboundAttachment[] {
  if (!f || !str(f.file_id)) return [];
  const size = typeof f.file_size === 'number' && f.file_size > 0 ? { size: f.file_size } : {};
  return [{ name: str(f.file_name) ?? name, contentType: str(f.mime_type) ?? type, fileId: f.file_id as string, ...size }];
}

/**
 * The files of a message, each fetched by file id through the Bot API `getFile`: the largest size
 * of a photo, a document, voice, audio, video, video note, animation or sticker. An animation also
 * comes as its `document` (the Bot API keeps both for older clients): one file, not two.
 */
function messagingBFiles(m: MessagingBMessage): InboundAttachment[] {
  const files: InboundAttachment[] = [];
  const photos = Array.isArray(m.photo) ? m.photo : [];
  const area = (p: MessagingBFile) => (typeof p.width === 'number' && typeof p.height === 'number' ? p.width * p.height : 0);
  const largest = photos.reduce<MessagingBFile | undefined>((best, p) => (!best || area(p) >= area(best) ? p : best), undefined);
  files.push(...messagingBFile(largest, 'photo.jpg', 'image/jpeg'));
  for (const { field, name, type } of MESSAGING_B_MEDIA) {
    if (field === 'document' && m.animation) continue;
    files.push(...messagingBFile(m[field], name, type));
  }
  const sticker = m.sticker;
  if (sticker) {
    const [name, type] = sticker.is_animated === true ? ['sticker.tgs', 'application/x-tgsticker'] : sticker.is_video === true ? ['sticker.webm', 'video/webm'] : ['sticker.webp', 'image/webp'];
    files.push(...messagingBFile({ ...sticker, file_name: undefined, mime_type: undefined }, name, type));
  }
  return files;
}

/** `@username` as a whole word (usernames are letters, digits and underscores, any case). */
const usernameIn = (username: string, flags = '') => new RegExp(`@${username.replace(/[^A-Za-z0-9_]/g, '')}(?![A-Za-z0-9_])`, `i${flags}`);

const sameName = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

/**
 * Whether a group message names the bot: `@username` in the text, or one of its entities (a
 * mention of the bot, a text mention of its user, a command `/x` or `/x@username`), or a reply to
 * one of the bot's own messages. With privacy mode on, these are what the bot receives.
 */
function namesBot(m: MessagingBMessage, raw: string, bot: MessagingBBot): boolean {
  const isBot = (u: MessagingBUser | undefined) => u !== undefined && ((bot.id !== undefined && String(u.id) === bot.id) || (u.is_bot === true && sameName(u.username, bot.username)));
  if (bot.username && usernameIn(bot.username).test(raw)) return true;
  if (isBot(m.reply_to_message?.from)) return true;
  const entities = [...(Array.isArray(m.entities) ? m.entities : []), ...(Array.isArray(m.caption_entities) ? m.caption_entities : [])];
  return entities.some((e) => {
    const part = typeof e.offset === 'number' && typeof e.length === 'number' ? raw.slice(e.offset, e.offset + e.length) : '';
    if (e.type === 'mention') return sameName(part.slice(1), bot.username);
    if (e.type === 'text_mention') return isBot(e.user);
    if (e.type === 'bot_command') {
      const target = part.split('@')[1];
      return target === undefined || sameName(target, bot.username);
    }
    return false;
  });
}

export function parseMessagingB(update: MessagingBUpdate, bot: MessagingBBot): ParseResult {
  const m = update.message;
  if (!m || m.chat?.id === undefined || m.message_id === undefined) return ignore('unsupported_event');
  if (m.from?.is_bot) return ignore('bot_authored');
  const raw = str(m.text) ?? str(m.caption) ?? '';
  const chatId = String(m.chat.id);
  const direct = m.chat.type === 'private';
  const text = (bot.username ? raw.replace(usernameIn(bot.username, 'g'), '') : raw).trim();
  return {
    ok: true,
    message: {
      channel: 'messaging-b',
      messageKey: `${chatId}:${m.message_id}`,
      threadKey: chatId,
      text,
      sender: { id: String(m.from?.id ?? chatId), name: str(m.from?.first_name) ?? null },
      addressed: direct || namesBot(m, raw, bot),
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
