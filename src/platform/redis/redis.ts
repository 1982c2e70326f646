import { Redis } from 'ioredis';
import { logger } from '../observability/logger.js';

/** DI token of the app's Redis connection (present only with REDIS_URL). */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/**
 * A Redis connection that never blocks a request while Redis is down: commands fail fast
 * (no offline queue) and the client keeps reconnecting in the background. The commands issued in
 * one turn of the event loop leave in one write (ioredis's automatic pipelining; so do those of
 * its duplicates): under load the requests' limits and the pushes' publishes share system calls.
 * Close it with `closeRedis`, which lets the commands already issued go out first.
 */
export function createRedis(url: string, name: string): Redis {
  const client = new Redis(url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    enableAutoPipelining: true,
    connectionName: `cos-${name}`,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  // One line when the connection is lost, one when it is back. A lost connection shows as an
  // `error` event (a refused connect, a reset) or only as `reconnecting` (the server went away and
  // the client retries; a deliberate quit never reconnects), whichever comes first.
  let warned = false;
  const lost = (reason: string) => {
    if (!warned) logger.warn({ err: reason, name }, 'redis connection error (retrying)');
    warned = true;
  };
  client.on('error', (err: Error) => lost(err.message));
  client.on('reconnecting', () => lost('connection closed'));
  client.on('ready', () => {
    if (warned) logger.info({ name }, 'redis connection restored');
    warned = false;
  });
  return client;
}

/** Resolves when the client is ready, or after `timeoutMs` (the app starts anyway and keeps retrying). */
export async function waitForRedis(client: Redis, timeoutMs = 3000): Promise<boolean> {
  if (client.status === 'ready') return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    client.once('ready', onReady);
  });
}

/**
 * Closes a connection without failing the commands already issued on it: a pipelined command
 * waits for the end of its event-loop turn before it is written, so this waits for that turn, then
 * sends QUIT, which Redis answers after every command before it. A connection that is not up is
 * dropped at once (its commands fail as they would while Redis is down).
 */
export async function closeRedis(client: Redis | undefined, timeoutMs = 2000): Promise<void> {
  if (!client) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  await Promise.race([
    client.quit().then(
      () => undefined,
      () => undefined,
    ),
    late,
  ]);
  clearTimeout(timer);
  client.disconnect();
}
