import type { webApi } from '@slack/bolt';
import { mediaTypeOf, startLoopback, unknownKeys, type Loopback, type ReceivedCall } from './loopback.js';

/** The arguments chat.postMessage documents (web API reference), besides the token. */
const POST_MESSAGE_FIELDS = [
  'channel',
  'text',
  'blocks',
  'attachments',
  'markdown_text',
  'as_user',
  'icon_emoji',
  'icon_url',
  'link_names',
  'metadata',
  'mrkdwn',
  'parse',
  'reply_broadcast',
  'thread_ts',
  'unfurl_links',
  'unfurl_media',
  'username',
] as const;

/** What the file host answers a download without a valid token: its sign-in page, with 200. */
export const SIGN_IN_PAGE = '<!DOCTYPE html><html lang="en-US"><head><title>Sign in | Slack</title></head><body><form action="/signin">Sign in to your workspace</form></body></html>';

interface HostedFile {
  bytes: Buffer;
  contentType: string;
}

export interface ChatAVendor extends Loopback {
  /** The web API base (`CHAT_A_API_BASE_URL`), as `https://slack.com/api`. */
  apiBaseUrl: string;
  botToken: string;
  /** Whether the bot token carries `files:read`; without it the file host answers its sign-in page. */
  filesRead: boolean;
  /** Hosts a private file at `<url>/files-pri/<team>-<id>/...`; its `url_private` and `url_private_download`. */
  hostFile(team: string, id: string, name: string, bytes: Buffer, contentType: string): { url_private: string; url_private_download: string };
  /** What `files.info` answers for a file id (a Slack Connect file names only its id). */
  fileInfo: Map<string, Record<string, unknown>>;
  /** The chat.postMessage calls, their bodies typed as the web API client types its arguments. */
  posts(): Array<{ call: ReceivedCall; body: webApi.ChatPostMessageArguments }>;
  /** The downloads of hosted files. */
  downloads(): ReceivedCall[];
}

/**
 * A loopback stand-in for the chat-a web API and file host, checking each call against the
 * vendor's documented shape: chat.postMessage is a POST of JSON with `Authorization: Bearer
 * <bot token>` and a channel and text; files.info a POST of a form with the token and `file`; a
 * private file download a GET with the token, else the sign-in page (200, text/html).
 */
export async function startChatAVendor(botToken: string): Promise<ChatAVendor> {
  const files = new Map<string, HostedFile>();
  const fileInfo = new Map<string, Record<string, unknown>>();
  let ts = 1_700_000_000;
  const vendor: ChatAVendor = Object.assign(
    await startLoopback((call) => {
      const authorized = call.headers.authorization === `Bearer ${botToken}`;
      if (call.path.startsWith('/files-pri/')) {
        if (call.method !== 'GET') call.problems.push('a file download is a GET');
        const file = files.get(call.path);
        if (!file) return { status: 404, body: 'file not found' };
        if (!authorized || !vendor.filesRead) return { status: 200, body: SIGN_IN_PAGE, type: 'text/html; charset=utf-8' };
        return { status: 200, body: file.bytes, type: file.contentType };
      }
      if (call.path === '/api/chat.postMessage') {
        if (call.method !== 'POST') call.problems.push('chat.postMessage is a POST');
        if (mediaTypeOf(call.headers) !== 'application/json') call.problems.push(`JSON bodies need Content-Type application/json, got ${call.headers['content-type']}`);
        if (!call.headers.authorization?.startsWith('Bearer xoxb-')) call.problems.push('the bot token goes in Authorization: Bearer xoxb-...');
        if (!authorized) return { status: 200, body: { ok: false, error: 'invalid_auth' } };
        const body = JSON.parse(call.body) as Record<string, unknown>;
        unknownKeys(body, POST_MESSAGE_FIELDS, call.problems);
        if (typeof body.channel !== 'string' || !body.channel) call.problems.push('channel is a required string');
        if (typeof body.text !== 'string' || !body.text) call.problems.push('text is required when there are no blocks');
        if (body.thread_ts !== undefined && (typeof body.thread_ts !== 'string' || !/^\d+\.\d+$/.test(body.thread_ts))) call.problems.push('thread_ts is a message ts string');
        const sent = `${ts++}.000200`;
        return {
          status: 200,
          body: {
            ok: true,
            channel: body.channel,
            ts: sent,
            message: { type: 'message', text: body.text, user: 'U0LAN0Z89', bot_id: 'B123ABC456', ts: sent, ...(body.thread_ts ? { thread_ts: body.thread_ts } : {}) },
          },
        };
      }
      if (call.path === '/api/files.info') {
        if (call.method !== 'POST' && call.method !== 'GET') call.problems.push('files.info is a GET or a POST');
        if (call.method === 'POST' && mediaTypeOf(call.headers) !== 'application/x-www-form-urlencoded') call.problems.push('files.info takes a form body (application/x-www-form-urlencoded)');
        if (!authorized) return { status: 200, body: { ok: false, error: 'invalid_auth' } };
        const id = (call.method === 'POST' ? new URLSearchParams(call.body) : call.query).get('file');
        if (!id) call.problems.push('file is required');
        const file = id ? fileInfo.get(id) : undefined;
        return { status: 200, body: file ? { ok: true, file, comments: [], response_metadata: { next_cursor: '' } } : { ok: false, error: 'file_not_found' } };
      }
      return undefined;
    }),
    {
      apiBaseUrl: '',
      botToken,
      filesRead: true,
      fileInfo,
      hostFile(team: string, id: string, name: string, bytes: Buffer, contentType: string) {
        const view = `/files-pri/${team}-${id}/${encodeURIComponent(name)}`;
        const download = `/files-pri/${team}-${id}/download/${encodeURIComponent(name)}`;
        for (const path of [view, download]) files.set(path, { bytes, contentType });
        return { url_private: vendor.url + view, url_private_download: vendor.url + download };
      },
      posts: () => vendor.calls.filter((c) => c.path === '/api/chat.postMessage').map((call) => ({ call, body: JSON.parse(call.body) as webApi.ChatPostMessageArguments })),
      downloads: () => vendor.calls.filter((c) => c.path.startsWith('/files-pri/')),
    },
  );
  vendor.apiBaseUrl = `${vendor.url}/api`;
  return vendor;
}
