import { Injectable } from '@nestjs/common';
import { ConversationStatsRepository } from './conversation-stats.repository.js';

/**
 * What the ops panels read of conversations (spec 8.1): message usage per hour and day (visible,
 * never billed) and the Expert workload of the attention list per Specialist.
 */
@Injectable()
export class ConversationStatsService {
  constructor(private readonly repo: ConversationStatsRepository) {}

  messageUsage(orgId: string, unit: 'hour' | 'day', from: Date, to: Date) {
    return this.repo.messagesPer(orgId, unit, from, to);
  }

  /** Handle time of a resolved item: from raised to resolved (its last update), in minutes. */
  async workload(from: Date, to: Date) {
    return (await this.repo.workloadPerSpecialist(from, to)).map(({ avgHandleSeconds, ...r }) => ({
      ...r,
      avgHandleMinutes: avgHandleSeconds === null ? null : Math.round((avgHandleSeconds / 60) * 10) / 10,
    }));
  }
}
