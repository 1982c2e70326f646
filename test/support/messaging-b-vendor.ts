import type { File as BotApiFile, Opts } from '@grammyjs/types';
import { mediaTypeOf, startLoopback, unknownKeys, type Loopback, type ReceivedCall } from './loopback.js';

/** The parameters sendMessage documents (Bot API reference); `reply_to_message_id` is no longer one of them. */
const SEND_MESSAGE_FIELDS = [
  'business_connection_id',
  'chat_id',
  'message_thread_id',
  'direct_messages_topic_id',
  'text',
  'parse_mode',
  'entities',
  'link_preview_options',
  'disable_notification',
  'protect_content',
  'allow_paid_broadcast',
  'message_effect_id',
  'suggested_post_parameters',
  'reply_parameters',
  'reply_markup',
] as const;
const REPLY_PARAMETERS_FIELDS = ['message_id', 'chat_id', 'allow_sending_without_reply', 'quote', 'quote_parse_mode', 'quote_entities', 'quote_position', 'checklist_task_id'] as const;

/** The Bot API's download limit for getFile. */
export const BOT_API_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

interface StoredFile {
  file: BotApiFile;
  bytes: Buffer;
  contentType: string;
}

export interface MessagingBVendor extends Loopback {
  botToken: string;
  /** Stores a file the bot may download: what getFile answers for its id, and the bytes at its path. */
  storeFile(fileId: string, filePath: string, bytes: Buffer, contentType: string): BotApiFile;
  /** The sendMessage calls, their bodies typed as the Bot API types its parameters. */
  sends(): Array<{ call: ReceivedCall; body: Opts<unknown>['sendMessage'] }>;
  getFiles(): ReceivedCall[];
  downloads(): ReceivedCall[];
}

/**
 * A loopback stand-in for the messaging-b Bot API (`MESSAGING_B_API_BASE_URL`), checking each call
 * against the documented shape: `/bot<token>/<method>`, sendMessage a POST of JSON with chat_id,
 * text (1-4096 characters) and reply_parameters; getFile by file_id; downloads at
 * `/file/bot<token>/<file_path>`. Answers are the Bot API's `{ ok, result }` / `{ ok, error_code, description }`.
 */
export async function startMessagingBVendor(botToken: string): Promise<MessagingBVendor> {
  const files = new Map<string, StoredFile>();
  let nextMessageId = 9000;
  const botCall = (path: string) => /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(path);
  const vendor: MessagingBVendor = Object.assign(
    await startLoopback((call) => {
      const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(call.path);
      if (download) {
        if (call.method !== 'GET') call.problems.push('a file download is a GET');
        const stored = [...files.values()].find((f) => f.file.file_path === decodeURI(download[2]!));
        if (download[1] !== botToken || !stored) return { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } };
        return { status: 200, body: stored.bytes, type: stored.contentType };
      }
      const method = botCall(call.path);
      if (!method) return undefined;
      if (method[1] !== botToken) return { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } };
      if (method[2] === 'getFile') {
        const fileId = call.method === 'GET' ? call.query.get('file_id') : (JSON.parse(call.body || '{}') as { file_id?: string }).file_id;
        if (!fileId) call.problems.push('file_id is required');
        const stored = fileId ? files.get(fileId) : undefined;
        if (!stored) return { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: invalid file_id' } };
        if ((stored.file.file_size ?? 0) > BOT_API_DOWNLOAD_LIMIT) return { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: file is too big' } };
        return { status: 200, body: { ok: true, result: stored.file } };
      }
      if (method[2] === 'sendMessage') {
        if (call.method !== 'POST') call.problems.push('sendMessage with a body is a POST');
        if (mediaTypeOf(call.headers) !== 'application/json') call.problems.push(`a JSON body needs Content-Type application/json, got ${call.headers['content-type']}`);
        const body = JSON.parse(call.body) as Record<string, unknown>;
        if ('reply_to_message_id' in body) call.problems.push('reply_to_message_id is deprecated: reply_parameters.message_id');
        unknownKeys(body, SEND_MESSAGE_FIELDS, call.problems);
        if (typeof body.chat_id !== 'number' && typeof body.chat_id !== 'string') call.problems.push('chat_id is an integer or a string');
        if (typeof body.text !== 'string' || body.text.length < 1 || body.text.length > 4096) call.problems.push('text is 1-4096 characters');
        const reply = body.reply_parameters as Record<string, unknown> | undefined;
        if (reply !== undefined) {
          if (typeof reply !== 'object' || reply === null) call.problems.push('reply_parameters is an object');
          else {
            unknownKeys(reply, REPLY_PARAMETERS_FIELDS, call.problems);
            if (!Number.isInteger(reply.message_id)) call.problems.push('reply_parameters.message_id is an integer');
          }
        }
        const chatId = Number(body.chat_id);
        return {
          status: 200,
          body: {
            ok: true,
            result: {
              message_id: nextMessageId++,
              date: Math.floor(Date.now() / 1000),
              chat: { id: chatId, type: chatId < 0 ? 'group' : 'private' },
              from: { id: Number(botToken.split(':')[0]), is_bot: true, first_name: 'Acme Support', username: 'acme_support_bot' },
              text: body.text,
            },
          },
        };
      }
      return undefined;
    }),
    {
      botToken,
      storeFile(fileId: string, filePath: string, bytes: Buffer, contentType: string) {
        const file: BotApiFile = { file_id: fileId, file_unique_id: `U${fileId}`, file_size: bytes.length, file_path: filePath };
        files.set(fileId, { file, bytes, contentType });
        return file;
      },
      sends: () => vendor.calls.filter((c) => c.path === `/bot${botToken}/sendMessage`).map((call) => ({ call, body: JSON.parse(call.body) as Opts<unknown>['sendMessage'] })),
      getFiles: () => vendor.calls.filter((c) => c.path === `/bot${botToken}/getFile`),
      downloads: () => vendor.calls.filter((c) => c.path.startsWith('/file/bot')),
    },
  );
  return vendor;
}
