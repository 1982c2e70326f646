import { REALTIME_NAMESPACE, type ClientToServerEvents, type ServerToClientEvents, type SocketRefusal } from '@contracts/realtime';
import { useQueryClient, type QueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, type DependencyList } from 'react';
import { io, type Socket } from 'socket.io-client';
import { useToken } from '../auth/session';

export type AppSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/**
 * One socket per session (token), shared by every part of the app that listens: the notification
 * bell, the open thread, the attention list. It closes once nothing uses it, or when the token
 * changes (sign out, another sign-in).
 */
interface Shared {
  token: string;
  socket: AppSocket;
  users: number;
  closing?: ReturnType<typeof setTimeout>;
}

let shared: Shared | null = null;

function acquire(token: string): AppSocket {
  if (shared?.token === token) {
    clearTimeout(shared.closing);
    shared.users += 1;
    return shared.socket;
  }
  shared?.socket.disconnect();
  const socket: AppSocket = io(REALTIME_NAMESPACE, {
    path: '/socket.io/',
    auth: { token },
    transports: ['websocket', 'polling'],
    tryAllTransports: true,
  });
  retryWhenLimited(socket);
  shared = { token, socket, users: 1 };
  return socket;
}

/** Seconds to wait before trying again when every socket of the user is taken (another tab may close). */
const TOO_MANY_SOCKETS_RETRY_S = 30;

/**
 * A handshake refused for a limit (the per-IP throttle, 20 sockets per user) is not retried by the
 * client: try again once the limit may have passed, with jitter. A refused token is not retried:
 * the next request answers 401 and ends the session.
 */
function retryWhenLimited(socket: AppSocket): void {
  socket.on('connect_error', (err) => {
    if (socket.active) return; // a transport error: the client retries by itself
    const refusal = (err as Error & { data?: SocketRefusal }).data;
    const waitS = refusal?.code === 'rate_limit' ? refusal.retryAfterS : refusal?.code === 'too_many_sockets' ? TOO_MANY_SOCKETS_RETRY_S : null;
    if (waitS === null) return;
    setTimeout(
      () => {
        if (shared?.socket === socket && !socket.connected) socket.connect();
      },
      (Math.max(1, waitS) + Math.random() * 5) * 1000,
    );
  });
}

function release(socket: AppSocket): void {
  const current = shared;
  if (current?.socket !== socket) return; // replaced by another session's socket, already closed
  current.users -= 1;
  if (current.users > 0) return;
  // Moving between areas unmounts and mounts the users in one go: keep the connection for that moment.
  current.closing = setTimeout(() => {
    if (shared !== current || current.users > 0) return;
    current.socket.disconnect();
    shared = null;
  }, 0);
}

/**
 * Runs `subscribe` with the session's socket; the function it returns (removing its listeners)
 * runs when `deps` change or the component unmounts.
 */
export function useRealtime(subscribe: (socket: AppSocket) => () => void, deps: DependencyList): void {
  const token = useToken();
  useEffect(() => {
    if (!token) return;
    const socket = acquire(token);
    const unsubscribe = subscribe(socket);
    return () => {
      unsubscribe();
      release(socket);
    };
    // `subscribe` is a fresh closure each render; `deps` name what it depends on.
  }, [token, ...deps]);
}

export type ServerHandlers = { [E in keyof ServerToClientEvents]?: ServerToClientEvents[E] };

/**
 * Adds `handlers` and, when given, `onConnect` (every connect and reconnect: missed pushes are not
 * replayed, spec 6.1.2); returns the function that removes them.
 */
export function listen(socket: AppSocket, handlers: ServerHandlers, onConnect?: () => void): () => void {
  const entries = Object.entries(handlers) as Array<[keyof ServerToClientEvents, (...args: never[]) => void]>;
  for (const [event, handler] of entries) socket.on(event, handler as never);
  if (onConnect) socket.on('connect', onConnect);
  return () => {
    for (const [event, handler] of entries) socket.off(event, handler as never);
    if (onConnect) socket.off('connect', onConnect);
  };
}

/**
 * Applies a pushed change to cached data. A request for that data still in flight may have been
 * answered before the change existed, so it is asked again.
 */
export function applyPush<T>(queryClient: QueryClient, queryKey: QueryKey, update: (data: T | undefined) => T | undefined): void {
  const inFlight = queryClient.isFetching({ queryKey }) > 0;
  queryClient.setQueryData<T>(queryKey, update);
  if (inFlight) void queryClient.invalidateQueries({ queryKey });
}

/** Refetches the queries under `queryKeys` on every (re)connect and on each of `events`. */
export function useRefetchOn(events: readonly (keyof ServerToClientEvents)[], queryKeys: readonly QueryKey[]): void {
  const queryClient = useQueryClient();
  const eventsDep = events.join();
  const keysDep = JSON.stringify(queryKeys);
  useRealtime(
    (socket) => {
      const refetch = () => {
        for (const queryKey of queryKeys) void queryClient.invalidateQueries({ queryKey });
      };
      return listen(socket, Object.fromEntries(events.map((event) => [event, refetch])), refetch);
    },
    [queryClient, eventsDep, keysDep],
  );
}
