import { Inject, Injectable } from '@nestjs/common';
import { conversationsConfig, type ConversationsConfig } from './conversations.config.js';
import { RateLimitService, type Limiter } from '../../platform/rate-limit/rate-limit.service.js';

const WINDOW_S = 3600;

/**
 * The org message quota of spec 7.1 / 8 (`ORG_MESSAGE_QUOTA_PER_HOUR`): every message sent into
 * an org's conversations, by any of its users or channels, counts against one shared window.
 * Abuse protection, not a cost control.
 */
@Injectable()
export class MessageQuotaService {
  private readonly limiter: Limiter;

  constructor(@Inject(conversationsConfig.token) config: ConversationsConfig, rateLimits: RateLimitService) {
    this.limiter = rateLimits.limiter({ name: 'org-messages', points: config.limits.orgMessageQuotaPerHour, durationS: WINDOW_S });
  }

  /** Counts one message, or throws the 429 of spec 7.1 with its headers. */
  async consume(orgId: string): Promise<void> {
    await this.limiter.consumeOrThrow(orgId, 'The org message quota is exceeded');
  }

  async usage(orgId: string) {
    const { used, limit, resetAtMs } = await this.limiter.peek(orgId);
    return {
      orgId,
      limit,
      used: Math.min(used, limit),
      remaining: Math.max(0, limit - used),
      windowSeconds: WINDOW_S,
      resetAt: resetAtMs === null ? null : new Date(resetAtMs).toISOString(),
    };
  }
}
