import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { SharedCaches } from '../../src/platform/cache/shared-cache.js';
import type { AppConfig } from '../../src/platform/config/config.js';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { createRedis, waitForRedis } from '../../src/platform/redis/redis.js';

const configWith = (prefix: string) => ({ redisKeyPrefix: prefix }) as AppConfig;
// Outside a transaction DbService.afterCommit runs its hook at once: no database is opened here.
const dbService = () => new DbService({} as DatabaseHandle);
const until = async (check: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return check();
};

describe('shared caches', () => {
  const clients: Redis[] = [];
  const hubs: SharedCaches[] = [];
  afterEach(() => {
    for (const h of hubs.splice(0)) h.onApplicationShutdown();
    for (const c of clients.splice(0)) c.disconnect();
  });

  it('keeps a value until a write invalidates it, and never keeps a read that raced an invalidation', async () => {
    const hub = new SharedCaches(configWith('t:'), dbService());
    hubs.push(hub);
    hub.onModuleInit();
    const cache = hub.define<number>('unit', { ttlMs: 60_000, maxEntries: 10 });
    let version = 1;
    let reads = 0;
    const load = async () => {
      reads++;
      return version;
    };
    expect(await cache.get('k', load)).toBe(1);
    expect(await cache.get('k', load)).toBe(1);
    expect(reads).toBe(1);
    version = 2;
    cache.invalidate('k');
    expect(await cache.get('k', load)).toBe(2);
    expect(reads).toBe(2);

    // A read that started before a write and ended after it: answered, not kept.
    let release!: () => void;
    const slow = cache.get('other', async () => {
      await new Promise<void>((r) => (release = r));
      return 1;
    });
    await until(() => release !== undefined);
    cache.invalidate('other');
    release();
    expect(await slow).toBe(1);
    expect(await cache.get('other', async () => 3)).toBe(3);
  });

  it('caches nothing while its invalidation channel is not subscribed (Redis unreachable)', async () => {
    const dead = createRedis('redis://127.0.0.1:1', 'dead');
    clients.push(dead);
    const hub = new SharedCaches(configWith('t:'), dbService(), dead);
    hubs.push(hub);
    hub.onModuleInit();
    const cache = hub.define<number>('unit', { ttlMs: 60_000, maxEntries: 10 });
    let reads = 0;
    await cache.get('k', async () => ++reads);
    await cache.get('k', async () => ++reads);
    expect(reads).toBe(2);
  });

  it.runIf(process.env.REDIS_URL)('drops an entry on every instance when one of them writes', async () => {
    const prefix = `cos-test:${randomBytes(6).toString('hex')}:`;
    const r1 = createRedis(process.env.REDIS_URL!, 'one');
    const r2 = createRedis(process.env.REDIS_URL!, 'two');
    clients.push(r1, r2);
    expect(await waitForRedis(r1)).toBe(true);
    expect(await waitForRedis(r2)).toBe(true);
    const one = new SharedCaches(configWith(prefix), dbService(), r1);
    const two = new SharedCaches(configWith(prefix), dbService(), r2);
    hubs.push(one, two);
    one.onModuleInit();
    two.onModuleInit();
    expect(await until(() => one.live && two.live)).toBe(true);
    const a = one.define<string>('rows', { ttlMs: 60_000, maxEntries: 10 });
    const b = two.define<string>('rows', { ttlMs: 60_000, maxEntries: 10 });
    let stored = 'old';
    expect(await a.get('org', async () => stored)).toBe('old');
    expect(await b.get('org', async () => stored)).toBe('old');
    stored = 'new';
    a.invalidate('org');
    expect(await a.get('org', async () => stored)).toBe('new');
    // The other instance drops it once the invalidation arrives (until then it answers from its entry).
    let seen = await b.get('org', async () => stored);
    for (const end = Date.now() + 3000; seen !== 'new' && Date.now() < end; seen = await b.get('org', async () => stored)) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(seen).toBe('new');
  });
});
