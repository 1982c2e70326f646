import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { APP_CONFIG } from '../config/config.token.js';
import type { AppConfig } from '../config/config.js';
import { AppError } from '../errors/app-error.js';
import { REDIS_CLIENT } from '../redis/redis.js';

export interface LimitDefinition {
  /** Stable name; part of the store key. */
  name: string;
  points: number;
  durationS: number;
}

export interface LimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch milliseconds when the window resets. */
  resetAtMs: number;
}

/** One point taken ahead of a guess (a password, a code): given back when the guess was right. */
export interface Reservation extends LimitResult {
  refund(): Promise<void>;
}

/** A consume waiting for the next round trip of its key. */
interface Waiter {
  points: number;
  resolve(result: LimitResult): void;
  reject(err: unknown): void;
}

/**
 * One limiter: a fixed window of `points` per `durationS`, shared by every instance through Redis
 * when configured.
 *
 * One round trip per key at a time: the consumes of a key that arrive while its round trip is in
 * flight go together in the next one (one increment by their sum). The store still counts every
 * point, in order: each consume is answered from its own place in the window (the count before
 * the batch plus the points ahead of it), so a batch answers exactly what one consume after
 * another would have. A hot key (an org's many users, one busy caller) costs a fraction of a
 * round trip per request instead of one each.
 */
export class Limiter {
  private readonly queued = new Map<string, Waiter[]>();
  private readonly inFlight = new Set<string>();

  constructor(
    readonly definition: LimitDefinition,
    private readonly impl: RateLimiterAbstract,
  ) {}

  consume(key: string, points = 1): Promise<LimitResult> {
    return new Promise((resolve, reject) => {
      const waiting = this.queued.get(key);
      if (waiting) waiting.push({ points, resolve, reject });
      else this.queued.set(key, [{ points, resolve, reject }]);
      if (!this.inFlight.has(key)) this.send(key);
    });
  }

  /** Sends the consumes queued for `key` as one increment; the next batch goes when it is answered. */
  private send(key: string): void {
    const batch = this.queued.get(key);
    if (!batch) return;
    this.queued.delete(key);
    this.inFlight.add(key);
    let total = 0;
    for (const w of batch) total += w.points;
    const settle = (consumedAfter: number, msBeforeNext: number) => {
      const { points: limit } = this.definition;
      const resetAtMs = Date.now() + msBeforeNext;
      let used = consumedAfter - total;
      for (const w of batch) {
        used += w.points;
        w.resolve(used <= limit ? { allowed: true, limit, remaining: Math.max(0, limit - used), resetAtMs } : { allowed: false, limit, remaining: 0, resetAtMs });
      }
    };
    this.impl
      .consume(key, total)
      .then(
        (res) => settle(res.consumedPoints, res.msBeforeNext),
        (rej: unknown) => {
          // A refusal past the limit counts the batch too; any other refusal (a block) refuses it all.
          if (rej instanceof RateLimiterRes) settle(rej.consumedPoints > this.definition.points ? rej.consumedPoints : Number.POSITIVE_INFINITY, rej.msBeforeNext);
          else for (const w of batch) w.reject(rej);
        },
      )
      .finally(() => {
        this.inFlight.delete(key);
        this.send(key);
      });
  }

  /**
   * Takes a point before a guess is checked, so that parallel wrong guesses cannot pass the limit
   * together; the caller refunds it when the guess was right. Once the budget is spent the answer
   * is `allowed: false` for a right guess too, until the window ends.
   */
  async reserve(key: string): Promise<Reservation> {
    const result = await this.consume(key);
    return { ...result, refund: () => this.impl.reward(key, 1).then(() => undefined) };
  }

  /** Usage so far in the current window, without consuming. */
  async peek(key: string): Promise<{ used: number; limit: number; resetAtMs: number | null }> {
    const res = await this.impl.get(key);
    return {
      used: res?.consumedPoints ?? 0,
      limit: this.definition.points,
      resetAtMs: res ? Date.now() + res.msBeforeNext : null,
    };
  }

  /** Consumes, or throws the 429 of spec 7.1. */
  async consumeOrThrow(key: string, message = 'Too many requests'): Promise<LimitResult> {
    const result = await this.consume(key);
    if (!result.allowed) throw rateLimitError(result, message);
    return result;
  }
}

/** The headers of spec 7.1 for a result. */
export function rateLimitHeaders(result: LimitResult): Record<string, string> {
  const resetS = Math.ceil(result.resetAtMs / 1000);
  const headers: Record<string, string> = {
    'x-ratelimit-limit': String(result.limit),
    'x-ratelimit-remaining': String(result.allowed ? Math.max(0, result.remaining) : 0),
    'x-ratelimit-reset': String(resetS),
  };
  if (!result.allowed) headers['retry-after'] = String(Math.max(1, Math.ceil((result.resetAtMs - Date.now()) / 1000)));
  return headers;
}

export function rateLimitError(result: LimitResult, message: string): AppError {
  const headers = rateLimitHeaders(result);
  return new AppError('rate_limit', `${message}; retry after ${headers['retry-after']} seconds`, { headers });
}

/**
 * Makes limiters: Redis-backed (shared by all instances) when REDIS_URL is set, in memory
 * otherwise. While Redis is unreachable a Redis limiter falls back to an in-memory one, so
 * requests keep being served and limits recover when Redis does.
 */
@Injectable()
export class RateLimitService {
  private readonly limiters = new Map<string, Limiter>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis,
  ) {}

  /**
   * The per-IP part of the global throttle (spec 7.1, 8): `THROTTLE_IP_PER_MINUTE` per `ip:<address>`,
   * one budget for anonymous HTTP requests and socket handshakes.
   */
  ipThrottle(): Limiter {
    return this.limiter({ name: 'throttle-ip', points: this.config.limits.throttleIpPerMinute, durationS: 60 });
  }

  limiter(definition: LimitDefinition): Limiter {
    const id = `${definition.name}:${definition.points}:${definition.durationS}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new Limiter(definition, this.build(definition));
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  private build(d: LimitDefinition): RateLimiterAbstract {
    const keyPrefix = `${this.config.redisKeyPrefix}rl:${d.name}`;
    const memory = new RateLimiterMemory({ keyPrefix, points: d.points, duration: d.durationS });
    if (!this.redis) return memory;
    return new RateLimiterRedis({
      storeClient: this.redis,
      keyPrefix,
      points: d.points,
      duration: d.durationS,
      rejectIfRedisNotReady: true,
      insuranceLimiter: memory,
    });
  }
}
