import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import type { AppConfig } from '../../src/platform/config/config.js';
import { RateLimitService, rateLimitHeaders } from '../../src/platform/rate-limit/rate-limit.service.js';
import { createRedis, waitForRedis } from '../../src/platform/redis/redis.js';

const configWith = (prefix: string) => ({ redisKeyPrefix: prefix }) as AppConfig;

describe('limiters', () => {
  const clients: Redis[] = [];
  afterEach(() => {
    for (const c of clients.splice(0)) c.disconnect();
  });

  it('counts a fixed window in memory and reports spec 7.1 headers', async () => {
    const limiter = new RateLimitService(configWith('t:')).limiter({ name: 'unit', points: 2, durationS: 60 });
    const a = await limiter.consume('k');
    const b = await limiter.consume('k');
    const c = await limiter.consume('k');
    expect([a.allowed, b.allowed, c.allowed]).toEqual([true, true, false]);
    expect(b.remaining).toBe(0);
    const h = rateLimitHeaders(c);
    expect(h['x-ratelimit-limit']).toBe('2');
    expect(h['x-ratelimit-remaining']).toBe('0');
    expect(Number(h['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(h['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    expect((await limiter.consume('other')).allowed).toBe(true);
    expect(await limiter.peek('k')).toMatchObject({ used: 3, limit: 2 });
  });

  it('answers consumes made together as one after another would, in one store call per batch', async () => {
    const limiter = new RateLimitService(configWith('t:')).limiter({ name: 'batch', points: 5, durationS: 60 });
    const store = (limiter as unknown as { impl: { consume: (key: string, points: number) => Promise<unknown> } }).impl;
    const calls: number[] = [];
    const consume = store.consume.bind(store);
    store.consume = (key, points) => {
      calls.push(points);
      return consume(key, points);
    };
    const results = await Promise.all(Array.from({ length: 8 }, () => limiter.consume('k')));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, true, false, false, false]);
    expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0, 0]);
    // The first goes alone; the seven made while it was in flight go together.
    expect(calls).toEqual([1, 7]);
    expect(await limiter.peek('k')).toMatchObject({ used: 8, limit: 5 });
    const [two, one] = await Promise.all([limiter.consume('fresh', 2), limiter.consume('fresh', 4)]);
    expect([two!.allowed, two!.remaining, one!.allowed]).toEqual([true, 3, false]);
  });

  it('keeps serving from memory while Redis is unreachable', async () => {
    const dead = createRedis('redis://127.0.0.1:1', 'dead');
    clients.push(dead);
    const limiter = new RateLimitService(configWith('t:'), dead).limiter({ name: 'dead', points: 1, durationS: 60 });
    expect((await limiter.consume('k')).allowed).toBe(true);
    expect((await limiter.consume('k')).allowed).toBe(false);
  });

  it.runIf(process.env.REDIS_URL)('shares one budget between instances through Redis', async () => {
    const prefix = `cos-test:${randomBytes(6).toString('hex')}:`;
    const r1 = createRedis(process.env.REDIS_URL!, 'one');
    const r2 = createRedis(process.env.REDIS_URL!, 'two');
    clients.push(r1, r2);
    expect(await waitForRedis(r1)).toBe(true);
    expect(await waitForRedis(r2)).toBe(true);
    const def = { name: 'shared', points: 5, durationS: 60 };
    const one = new RateLimitService(configWith(prefix), r1).limiter(def);
    const two = new RateLimitService(configWith(prefix), r2).limiter(def);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? one : two).consume('org:x')));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    const keys = await r1.keys(`${prefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    await r1.del(...keys);
  });
});
