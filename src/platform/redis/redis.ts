import { Redis } from 'ioredis';
import { logger } from '../observability/logger.js';

/** DI token of the app's Redis connection (present only with REDIS_URL). */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/**
 * A Redis connection that never blocks a request while Redis is down: commands fail fast
 * (no offline queue) and the client keeps reconnecting in the background.
 */
export function createRedis(url: string, name: string): Redis {
  const client = new Redis(url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
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
