import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG } from '../config/config.token.js';
import type { AppConfig } from '../config/config.js';
import { DbService } from '../db/db.service.js';
import { logger } from '../observability/logger.js';
import { REDIS_CLIENT } from '../redis/redis.js';

export interface SharedCacheOptions {
  /** A safety net only (writes invalidate): an entry is read again after this long. */
  ttlMs: number;
  /** Entries kept at most (the oldest go first). */
  maxEntries: number;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * A read-through cache of rows that change rarely and are read on every agent turn (the briefs of
 * an org, its tool permissions, a Specialist). Every write of what it holds invalidates the key:
 * here at once and again once the write commits, and on every other instance through a Redis
 * channel. An entry read while an invalidation happened is not kept (a generation counter), so a
 * read that raced a write never fills the cache with the old rows. While the instance is not
 * subscribed to that channel (Redis down, reconnecting) nothing is cached: every read goes to the
 * database, and the cache starts empty once the subscription is back.
 */
export class SharedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private generation = 0;

  constructor(
    readonly name: string,
    private readonly options: SharedCacheOptions,
    private readonly hub: SharedCaches,
  ) {}

  /** The cached value of `key`, else `load()` (kept when no invalidation happened meanwhile). */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (!this.hub.live) return load();
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const generation = this.generation;
    const value = await load();
    if (generation === this.generation && this.hub.live) {
      this.entries.delete(key);
      this.entries.set(key, { value, expiresAt: now + this.options.ttlMs });
      if (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return value;
  }

  /**
   * Call after every write of what `key` holds (once the statement has run, inside the write's
   * transaction when there is one): dropped now, and again here and on every instance once the
   * write commits (at once outside a transaction).
   */
  invalidate(key: string): void {
    this.drop(key);
    this.hub.afterCommit(() => {
      this.drop(key);
      this.hub.publish(this.name, key);
    });
  }

  /** Drops one key (an invalidation, from this instance or another). */
  drop(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}

interface Invalidation {
  from: string;
  cache: string;
  key: string;
}

/** The shared caches of this instance and the Redis channel their invalidations travel on. */
@Injectable()
export class SharedCaches implements OnModuleInit, OnApplicationShutdown {
  private readonly caches = new Map<string, SharedCache<unknown>>();
  private readonly instance = randomUUID();
  private readonly channel: string;
  private sub?: Redis;
  /** Whether invalidations from the other instances reach this one (always, with no Redis: one instance). */
  live: boolean;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly dbService: DbService,
    @Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis,
  ) {
    this.channel = `${config.redisKeyPrefix}cache-invalidation`;
    this.live = !redis;
  }

  define<V>(name: string, options: SharedCacheOptions): SharedCache<V> {
    if (this.caches.has(name)) throw new Error(`shared cache ${name} defined twice`);
    const cache = new SharedCache<V>(name, options, this);
    this.caches.set(name, cache as SharedCache<unknown>);
    return cache;
  }

  onModuleInit(): void {
    if (!this.redis) return;
    const sub = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    this.sub = sub;
    sub.on('error', () => undefined);
    // Invalidations sent while the subscription was down are lost: nothing is cached until it is
    // back, and then the caches start empty. The first subscription is not awaited (a Redis down
    // at boot must not hold the start): caching begins once it is made.
    let subscribed = false;
    sub.on('close', () => this.setLive(false));
    sub.on('ready', () => subscribed && this.setLive(true));
    sub.on('message', (_channel: string, raw: string) => this.receive(raw));
    sub.subscribe(this.channel).then(
      () => {
        subscribed = true;
        this.setLive(sub.status === 'ready');
      },
      (err: unknown) => logger.warn({ err: (err as Error).message }, 'shared cache invalidations not subscribed (caching stays off)'),
    );
  }

  onApplicationShutdown(): void {
    this.live = false;
    this.sub?.disconnect();
  }

  afterCommit(fn: () => void): void {
    this.dbService.afterCommit(fn);
  }

  /** Tells the other instances (best effort: an instance that misses it has its subscription down, so caches nothing). */
  publish(cache: string, key: string): void {
    if (!this.redis) return;
    const message: Invalidation = { from: this.instance, cache, key };
    this.redis.publish(this.channel, JSON.stringify(message)).catch((err: unknown) => logger.warn({ err: (err as Error).message, cache, key }, 'shared cache invalidation not published'));
  }

  private receive(raw: string): void {
    let message: Invalidation;
    try {
      message = JSON.parse(raw) as Invalidation;
    } catch {
      return;
    }
    if (message.from === this.instance) return;
    this.caches.get(message.cache)?.drop(message.key);
  }

  private setLive(live: boolean): void {
    if (live === this.live) return;
    this.live = live;
    for (const cache of this.caches.values()) cache.clear();
  }
}
