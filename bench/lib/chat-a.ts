import { createHmac } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/*
 * chat-a as the bench plays it: signed `app_mention` events (docs/channels.md: X-Chat-A-Signature
 * `v0=<hex HMAC-SHA256(secret, "v0:" + ts + ":" + raw body)>` with X-Chat-A-Request-Timestamp),
 * and a bare stand-in for the vendor's web API that answers `chat.postMessage` and counts what the
 * server sends.
 */

export const CHAT_A_EVENTS_PATH = '/api/channels/chat-a/events';
/** The bot's user id on every bench integration (`config.botUserId`). */
export const BENCH_BOT_USER = 'UBENCHBOT';

/** One bench workspace: a chat-a team bound to an org by an integration. */
export interface ChatAWorkspace {
  teamId: string;
  orgId: string;
  /** The integration's `botToken` secret: the vendor sees it on each reply of this workspace. */
  botToken: string;
  /** The chat channel the workspace's mentions are posted in. */
  channel: string;
}

/** One event to deliver: its inbound key on the server (`<team_id>:<event_id>`) and its raw body. */
export interface ChatAEvent {
  key: string;
  teamId: string;
  raw: string;
}

/** The headers of a chat-a call signed at `nowS` (seconds). */
export function chatASignedHeaders(secret: string, raw: string, nowS = Math.floor(Date.now() / 1000)): Record<string, string> {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${nowS}:${raw}`).digest('hex')}`;
  return { 'content-type': 'application/json', accept: 'application/json', 'x-chat-a-request-timestamp': String(nowS), 'x-chat-a-signature': signature };
}

/** Message timestamps of this process: the vendor's message id is `<channel>:<ts>`, one per message. */
let messageSeq = 0;

/**
 * `count` distinct `app_mention` events, round-robin over the workspaces: unique event ids (the
 * `tag` keeps two runs apart), each mention a new thread of the workspace's channel (a `ts` never
 * given before by this process: the server takes two events of one channel and ts for one message),
 * a distinct text, from one of 50 users.
 */
export function mentionEvents(workspaces: ChatAWorkspace[], count: number, tag: string): ChatAEvent[] {
  const baseS = Math.floor(Date.now() / 1000);
  const events: ChatAEvent[] = [];
  for (let i = 0; i < count; i++) {
    const ws = workspaces[i % workspaces.length]!;
    const eventId = `Ev${tag}${i}`;
    const ts = `${baseS}.${String(messageSeq++).padStart(6, '0')}`;
    const body = {
      token: 'bench',
      team_id: ws.teamId,
      api_app_id: 'ABENCH',
      type: 'event_callback',
      event_id: eventId,
      event_time: baseS,
      authorizations: [{ user_id: BENCH_BOT_USER, is_bot: true }],
      event: {
        type: 'app_mention',
        user: `UBENCHUSER${i % 50}`,
        text: `<@${BENCH_BOT_USER}> Bench question ${tag}-${i}: what are your opening hours this week?`,
        ts,
        channel: ws.channel,
        channel_type: 'channel',
        event_ts: ts,
      },
    };
    events.push({ key: `${ws.teamId}:${eventId}`, teamId: ws.teamId, raw: JSON.stringify(body) });
  }
  return events;
}

/** What the vendor stand-in saw of the server's replies. */
export interface VendorCounts {
  /** `chat.postMessage` calls. */
  calls: number;
  /** Distinct outbox rows sent (the `idempotency-key` the server sends with each reply). */
  distinctReplies: number;
  /** Calls of a row already sent once (a second send of one reply). */
  repeatedReplies: number;
  /** Calls without an idempotency key, or whose bot token is not the one of the channel's workspace. */
  withoutKey: number;
  misrouted: number;
  /** ms (performance.now) of the last call, or null. */
  lastCallAtMs: number | null;
}

export interface ChatAVendor {
  /** Base URL for CHAT_A_API_BASE_URL. */
  url: string;
  counts(): VendorCounts;
  /** Forgets the calls seen so far (between two runs). */
  reset(): void;
  close(): Promise<void>;
}

/**
 * A bare local stand-in for the chat-a web API: `POST /chat.postMessage` answers
 * `{ ok: true, ts }` at once, anything else 404. It counts the calls, the distinct replies (by
 * idempotency key) and the replies sent with another workspace's bot token.
 */
export async function startChatAVendor(workspaces: () => ChatAWorkspace[]): Promise<ChatAVendor> {
  let calls = 0;
  let withoutKey = 0;
  let misrouted = 0;
  let lastCallAtMs: number | null = null;
  const keys = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat.postMessage')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"ok":false,"error":"unknown_method"}');
        return;
      }
      calls++;
      lastCallAtMs = performance.now();
      const key = req.headers['idempotency-key'];
      if (typeof key === 'string' && key) keys.set(key, (keys.get(key) ?? 0) + 1);
      else withoutKey++;
      let channel: unknown;
      try {
        channel = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { channel?: unknown }).channel;
      } catch {
        channel = undefined;
      }
      const ws = workspaces().find((w) => w.channel === channel);
      if (!ws || req.headers.authorization !== `Bearer ${ws.botToken}`) misrouted++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, channel, ts: `${Date.now() / 1000}` }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => {
      let repeated = 0;
      for (const n of keys.values()) repeated += n - 1;
      return { calls, distinctReplies: keys.size, repeatedReplies: repeated, withoutKey, misrouted, lastCallAtMs };
    },
    reset: () => {
      calls = 0;
      withoutKey = 0;
      misrouted = 0;
      lastCallAtMs = null;
      keys.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
