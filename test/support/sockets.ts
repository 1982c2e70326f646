import { io, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '../../src/contracts/realtime.js';

export type TestSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

export type TokenPlacement = 'auth' | 'query' | 'header';

/** Connects to the `/notifications` namespace; resolves on connect, rejects on connect_error. */
export function connectSocket(baseUrl: string, token: string | undefined, placement: TokenPlacement = 'auth'): Promise<TestSocket> {
  const socket: TestSocket = io(`${baseUrl}/notifications`, {
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
