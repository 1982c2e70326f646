import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { redactUrl } from './database.js';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** BENCH_REDIS_URL, then REDIS_URL, then the local default. */
export function redisUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.BENCH_REDIS_URL || env.REDIS_URL || DEFAULT_REDIS_URL;
}

/** A key prefix of this run only (`bench_<hex>:`), so runs never see each other's keys. */
export function uniqueRedisPrefix(): string {
  return `bench_${randomBytes(6).toString('hex')}:`;
}

export interface BenchRedis {
  url: string;
  prefix: string;
  /** Deletes every key under the prefix; returns how many were deleted. Idempotent. */
  deletePrefix(): Promise<number>;
}

function connect(url: string): Redis {
  // Fail fast: no retries, no offline queue, so an unreachable Redis is an error at once.
  return new Redis(url, {
    lazyConnect: true,
    connectTimeout: 3_000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectionName: 'bench',
  });
}

async function withRedis<T>(url: string, fn: (client: Redis) => Promise<T>): Promise<T> {
  const client = connect(url);
  // ioredis rejects connect() with "Connection is closed."; the cause (ECONNREFUSED, ...) comes as an event.
  let lastError: Error | undefined;
  client.on('error', (err: Error) => {
    lastError = err;
  });
  try {
    try {
      await client.connect();
    } catch (err) {
      throw lastError ?? err;
    }
    return await fn(client);
  } finally {
    client.disconnect();
  }
}

/**
 * Checks that Redis answers PING, and returns the handle used to remove this run's keys.
 * Throws a message that says what to do when it does not.
 */
export async function openBenchRedis(url: string, prefix: string): Promise<BenchRedis> {
  if (!/^[A-Za-z0-9_:]+$/.test(prefix)) throw new Error(`unsafe redis key prefix: ${prefix}`);
  try {
    const pong = await withRedis(url, (client) => client.ping());
    if (pong !== 'PONG') throw new Error(`PING answered ${JSON.stringify(pong)}`);
  } catch (err) {
    throw new Error(
      `Redis is not reachable at ${redactUrl(url)} (${(err as Error).message || String(err)}). ` + 'The bench runs the server with Redis: start it, or point BENCH_REDIS_URL (or REDIS_URL) at one.',
      { cause: err },
    );
  }
  let deleted: Promise<number> | undefined;
  return {
    url,
    prefix,
    deletePrefix() {
      deleted ??= withRedis(url, async (client) => {
        let cursor = '0';
        let count = 0;
        do {
          const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
          cursor = next;
          if (keys.length > 0) count += await client.unlink(...keys);
        } while (cursor !== '0');
        return count;
      });
      return deleted;
    },
  };
}
