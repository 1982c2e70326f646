import { Injectable } from '@nestjs/common';
import type { ExpertLeverage, ExpertWorkload } from '../../contracts/billing.js';
import { Clock } from '../../platform/clock/clock.js';
import { ConversationStatsService } from '../conversations/index.js';
import { ExpertsService } from '../experts/index.js';
import { SpecialistsService } from '../specialists/index.js';
import { opsRange } from './ops-range.js';
import { addDays, dayOf, dayStart } from './proration.js';

/**
 * Expert analytics of spec 8.1 (SuperAdmin, /ops/analytics): workload (attention-list items and
 * handle time per Specialist; the dollar cost of Expert time is never computed), the autonomous
 * handling rate (spec 2.5) and leverage (clients and Specialist instances per Expert).
 */
@Injectable()
export class AnalyticsService {
  constructor(
    private readonly stats: ConversationStatsService,
    private readonly specialists: SpecialistsService,
    private readonly experts: ExpertsService,
    private readonly clock: Clock,
  ) {}

  async workload(range: { from?: string; to?: string }): Promise<ExpertWorkload> {
    const { from, to } = opsRange(range, dayOf(this.clock.now()));
    const [start, end] = [dayStart(from), dayStart(addDays(to, 1))];
    const [rows, autonomousHandling] = await Promise.all([this.stats.workload(start, end), this.stats.autonomousHandling(start, end)]);
    const names = await this.specialists.byIds(rows.map((r) => r.specialistId));
    return {
      from,
      to,
      items: rows.map((r) => ({ ...r, name: names.get(r.specialistId)?.name ?? 'Unknown Specialist' })).sort((a, b) => b.items - a.items || a.name.localeCompare(b.name)),
      nextCursor: null,
      autonomousHandling,
    };
  }

  async leverage(): Promise<ExpertLeverage> {
    const rows = await this.experts.leverage();
    return {
      items: rows
        .map((r) => ({ expertId: r.id, name: r.name, email: r.email, clients: r.clients, specialistInstances: r.specialistInstances }))
        .sort((a, b) => b.specialistInstances - a.specialistInstances || a.name.localeCompare(b.name)),
      nextCursor: null,
    };
  }
}
