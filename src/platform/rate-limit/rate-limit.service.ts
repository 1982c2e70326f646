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

/** One limiter: a fixed window of `points` per `durationS`, shared by every instance through Redis when configured. */
export class Limiter {
  constructor(
    readonly definition: LimitDefinition,
    private readonly impl: RateLimiterAbstract,
  ) {}

  async consume(key: string, points = 1): Promise<LimitResult> {
    const { points: limit } = this.definition;
    try {
      const res = await this.impl.consume(key, points);
      return { allowed: true, limit, remaining: res.remainingPoints, resetAtMs: Date.now() + res.msBeforeNext };
    } catch (rej) {
      if (rej instanceof RateLimiterRes) {
        return { allowed: false, limit, remaining: 0, resetAtMs: Date.now() + rej.msBeforeNext };
      }
      throw rej;
    }
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
