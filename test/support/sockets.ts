import { io, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents, SocketRefusal } from '../../src/contracts/realtime.js';
import { claimsOf } from './sessions.js';
import type { TestApp } from './test-app.js';

export type TestSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

export type TokenPlacement = 'auth' | 'query' | 'header';

/** Connects to the `/notifications` namespace (or another); resolves on connect, rejects on connect_error. */
export function connectSocket(baseUrl: string, token: string | undefined, placement: TokenPlacement = 'auth', namespace = '/notifications'): Promise<TestSocket> {
  const socket: TestSocket = io(`${baseUrl}${namespace}`, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    timeout: 5000,
    ...(token && placement === 'auth' ? { auth: { token } } : {}),
    ...(token && placement === 'query' ? { query: { token } } : {}),
    ...(token && placement === 'header' ? { extraHeaders: { Authorization: `Bearer ${token}` } } : {}),
  });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (err) => {
      socket.close();
      reject(err);
    });
  });
}

/** Collects every event of one name a socket receives. */
export function collect<E extends keyof ServerToClientEvents>(socket: TestSocket, event: E): Array<Parameters<ServerToClientEvents[E]>[0]> {
  const seen: Array<Parameters<ServerToClientEvents[E]>[0]> = [];
  socket.on(event as any, (payload: any) => seen.push(payload));
  return seen;
}

export async function waitFor(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The `data` of the connect_error a refused handshake gets (fails when the socket connects). */
export async function refusalOf(baseUrl: string, token: string | undefined, namespace?: string): Promise<{ message: string; data: SocketRefusal }> {
  try {
    const socket = await connectSocket(baseUrl, token, 'auth', namespace);
    socket.close();
  } catch (err) {
    return { message: (err as Error).message, data: (err as Error & { data: SocketRefusal }).data };
  }
  throw new Error('the socket connected');
}

/** The text of every message a socket is streamed (client and Specialist messages, Expert follow-ups). */
export function messageTexts(socket: TestSocket): string[] {
  const texts: string[] = [];
  for (const event of ['user_message_received', 'agent_message_sent', 'workspace_message_added'] as const) {
    socket.on(event, (payload) => texts.push(payload.message.content));
  }
  return texts;
}

/** Resolves once the socket is disconnected (by the server), or fails after `timeoutMs`. */
export function disconnected(socket: TestSocket, timeoutMs = 5000): Promise<void> {
  return waitFor(() => !socket.connected, timeoutMs);
}

/** `count` tokens of one user, each a sign-in of its own, with its session id (`sid`). */
export async function sessionTokens(app: TestApp, email: string, password: string, count: number): Promise<Array<{ token: string; sessionId: string }>> {
  const tokens: Array<{ token: string; sessionId: string }> = [];
  for (let i = 0; i < count; i++) {
    const token = await app.login(email, password);
    tokens.push({ token, sessionId: claimsOf(token).sid as string });
  }
  return tokens;
}
