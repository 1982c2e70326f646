import { Injectable } from '@nestjs/common';
import type { AutonomousHandling, HandlingRate, OrgAutonomousHandling } from '../../contracts/conversations.js';
import { OrgsService } from '../orgs/index.js';
import { SpecialistsService } from '../specialists/index.js';
import { ConversationStatsRepository } from './conversation-stats.repository.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';

type Counts = Omit<HandlingRate, 'rate'>;

/**
 * What the ops panels read of conversations (spec 8.1): message usage per hour and day (visible,
 * never billed), the Expert workload of the attention list per Specialist, and the autonomous
 * handling rate (spec 2.5 `auto_responded`).
 */
@Injectable()
export class ConversationStatsService {
  constructor(
    private readonly repo: ConversationStatsRepository,
    private readonly orgs: OrgsService,
    private readonly specialists: SpecialistsService,
  ) {}

  messageUsage(scope: OrgScope, unit: 'hour' | 'day', from: Date, to: Date) {
    return this.repo.messagesPer(scope, unit, from, to);
  }

  /** Handle time of a resolved item: from raised to resolved (its last update), in minutes. */
  async workload(from: Date, to: Date) {
    return (await this.repo.unscopedWorkloadPerSpecialist(from, to)).map(({ avgHandleSeconds, ...r }) => ({
      ...r,
      avgHandleMinutes: avgHandleSeconds === null ? null : Math.round((avgHandleSeconds / 60) * 10) / 10,
    }));
  }

  /** The autonomous handling rate of the conversations created in [from, to): platform wide, per org and per Specialist. */
  async autonomousHandling(from: Date, to: Date): Promise<AutonomousHandling> {
    const rows = await this.repo.unscopedHandlingPer(from, to);
    const byOrg = foldBy(rows, (r) => r.orgId);
    const names = await this.orgs.summaries([...byOrg.keys()]);
    return {
      ...(await this.perSpecialist(rows)),
      byOrg: sorted([...byOrg].map(([orgId, c]) => ({ orgId, name: names.get(orgId)?.legalName ?? 'Unknown org', ...withRate(c) }))),
    };
  }

  /** The same for one org's conversations: its total and per Specialist. */
  async orgAutonomousHandling(scope: OrgScope, from: Date, to: Date): Promise<OrgAutonomousHandling> {
    return this.perSpecialist(await this.repo.handlingPer(scope, from, to));
  }

  private async perSpecialist(rows: Array<Counts & { orgId: string; specialistId: string }>): Promise<OrgAutonomousHandling> {
    const bySpecialist = foldBy(rows, (r) => r.specialistId);
    const names = await this.specialists.byIds([...bySpecialist.keys()]);
    return {
      total: withRate(foldBy(rows, () => '').get('') ?? zero()),
      bySpecialist: sorted([...bySpecialist].map(([specialistId, c]) => ({ specialistId, name: names.get(specialistId)?.name ?? 'Unknown Specialist', ...withRate(c) }))),
    };
  }
}

const zero = (): Counts => ({ conversations: 0, autoResponded: 0, autonomous: 0 });

function foldBy<R extends Counts>(rows: R[], key: (r: R) => string): Map<string, Counts> {
  const out = new Map<string, Counts>();
  for (const r of rows) {
    const acc = out.get(key(r)) ?? zero();
    acc.conversations += r.conversations;
    acc.autoResponded += r.autoResponded;
    acc.autonomous += r.autonomous;
    out.set(key(r), acc);
  }
  return out;
}

const withRate = (c: Counts): HandlingRate => ({ ...c, rate: c.conversations === 0 ? null : c.autonomous / c.conversations });

/** Most conversations first, then by name. */
const sorted = <T extends Counts & { name: string }>(rows: T[]) => rows.sort((a, b) => b.conversations - a.conversations || a.name.localeCompare(b.name));
