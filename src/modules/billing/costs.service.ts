import { Injectable } from '@nestjs/common';
import { PAYMENT_STATES, type CostSlice, type OpsBillingOrg, type OrgCosts, type PaymentState, type PlatformCosts } from '../../contracts/billing.js';
import type { PageOf } from '../../contracts/pages.js';
import { Clock } from '../../platform/clock/clock.js';
import { AppError } from '../../platform/errors/app-error.js';
import { decodeCursor, pageOf } from '../../platform/http/pagination.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';
import { AgentService } from '../agent/index.js';
import { ConversationStatsService, MessageQuotaService } from '../conversations/index.js';
import { OrgsService, type OrgRow } from '../orgs/index.js';
import { AssignmentsService, DEFAULT_CURRENCY } from '../specialists/index.js';
import { BillingRepository, type CostGroup, type CostRollupRow } from './billing.repository.js';
import { BillingService, dunningOf } from './billing.service.js';
import { opsRange } from './ops-range.js';
import { addDays, dayOf, dayStart as startOf } from './proration.js';

/** A closed day is rolled up this long after it ends, so a call still being written lands in it. */
const ROLLUP_DELAY_MS = 5 * 60_000;
const TOP_ORGS = 10;

type Totals = { costMicroUsd: number; calls: number; inputTokens: number; outputTokens: number };
type Row = Totals & { key: string | null };
/** A day range; with a scope, one org's costs, else every org's (the platform panel). */
type Range = { from: string; to: string; scope?: OrgScope };
/** A range as read once: where the rollup ends, and the ledger's totals of the later days. */
type RangeSource = Range & { rolledThrough: string; live: Array<Totals & { day: string; orgId: string; osaId: string | null; purpose: string }> };

/**
 * The cost panels of spec 8.1, read from the `llm_runs` ledger (through the agent module) and
 * never invoiced. Closed days come from `llm_cost_daily`, a rollup per day, org, OSA and purpose;
 * the days not rolled yet (today) are aggregated live from the ledger's `created_at` index.
 */
@Injectable()
export class CostsService {
  constructor(
    private readonly repo: BillingRepository,
    private readonly agent: AgentService,
    private readonly orgs: OrgsService,
    private readonly assignments: AssignmentsService,
    private readonly stats: ConversationStatsService,
    private readonly quota: MessageQuotaService,
    private readonly billing: BillingService,
    private readonly clock: Clock,
  ) {}

  /** Rolls up every closed day not rolled yet (each day replaced whole: running twice is harmless). */
  async rollupClosedDays(now: Date = this.clock.now()): Promise<string[]> {
    const last = await this.repo.lastRolledDay();
    const first = last ? addDays(last, 1) : await this.agent.firstLedgerCallAt().then((at) => (at ? dayOf(at) : null));
    if (!first) return [];
    const rolled: string[] = [];
    for (let day = first; startOf(addDays(day, 1)).getTime() + ROLLUP_DELAY_MS <= now.getTime(); day = addDays(day, 1)) {
      await this.rollupDay(day);
      rolled.push(day);
    }
    return rolled;
  }

  async rollupDay(day: string): Promise<void> {
    const totals = await this.agent.ledgerTotals(startOf(day), startOf(addDays(day, 1)));
    const rows: CostRollupRow[] = totals.map((t) => ({
      day,
      orgId: t.orgId,
      osaId: t.osaId,
      purpose: t.purpose,
      costMicroUsd: t.costMicroUsd,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      calls: t.calls,
      errors: t.errors,
    }));
    await this.repo.unscopedReplaceRollupDay(day, rows);
  }

  /** Ledger total of one day: the rollup when rolled, else the ledger itself. */
  async dayTotalMicroUsd(day: string): Promise<number> {
    const [rolled] = (await this.sliced('day', await this.source({ from: day, to: day }))).filter((r) => r.key === day);
    return rolled?.costMicroUsd ?? 0;
  }

  /** `GET /ops/billing/costs`: trend, top orgs, by Specialist, by purpose. */
  async platform(range: { from?: string; to?: string }): Promise<Omit<PlatformCosts, 'reconciliation'>> {
    const r = this.range(range);
    const src = await this.source(r);
    const [trend, byOrg, byOsa, byPurpose] = await Promise.all([this.sliced('day', src), this.sliced('org', src), this.sliced('osa', src), this.sliced('purpose', src)]);
    const orgNames = await this.orgs.summaries(byOrg.map((o) => o.key!).filter(Boolean));
    return {
      ...r,
      totalMicroUsd: sum(trend),
      trend: this.series(r, trend),
      topOrgs: sortSlices(byOrg.map((o) => slice(o, orgNames.get(o.key!)?.legalName ?? o.key ?? 'unknown'))).slice(0, TOP_ORGS),
      bySpecialist: await this.bySpecialist(null, byOsa),
      byPurpose: sortSlices(byPurpose.map((p) => slice(p, p.key ?? 'unknown'))),
    };
  }

  /** `GET /ops/billing/orgs/:orgId`: hourly and daily message usage (never billed), LLM cost per Specialist, the autonomous handling rate. */
  async org(scope: OrgScope, range: { from?: string; to?: string }): Promise<OrgCosts> {
    const orgId = scope.orgId;
    const org = await this.orgs.findById(orgId);
    if (!org) throw AppError.notFound('Organization');
    const r = this.range(range);
    const now = this.clock.now();
    const [row] = await this.paymentStates([org]);
    const src = await this.source({ ...r, scope });
    const [trend, byOsa, hourly, daily, quota, invoices, autonomousHandling] = await Promise.all([
      this.sliced('day', src),
      this.sliced('osa', src),
      this.stats.messageUsage(scope, 'hour', new Date(now.getTime() - 48 * 3600_000), now),
      this.stats.messageUsage(scope, 'day', startOf(r.from), startOf(addDays(r.to, 1))),
      this.quota.usage(orgId),
      this.billing.invoices(scope, { limit: 12 }),
      this.stats.orgAutonomousHandling(scope, startOf(r.from), startOf(addDays(r.to, 1))),
    ]);
    const point = (u: { at: Date; clientMessages: number; specialistMessages: number }) => ({ at: u.at.toISOString(), clientMessages: u.clientMessages, specialistMessages: u.specialistMessages });
    return {
      org: row!,
      ...r,
      quota: { limit: quota.limit, used: quota.used },
      hourlyUsage: hourly.map(point),
      dailyUsage: daily.map(point),
      costTrend: this.series(r, trend),
      costBySpecialist: await this.bySpecialist(scope, byOsa),
      totalMicroUsd: sum(trend),
      invoices: invoices.items,
      autonomousHandling,
    };
  }

  /**
   * `GET /ops/billing/orgs`: a page of the activated orgs (oldest first) with their payment state
   * and what they owe; `payment` keeps the orgs in that state, `orgId` one org.
   */
  async paymentStatesPage(q: { limit: number; cursor?: string; payment?: PaymentState; orgId?: string }): Promise<PageOf<OpsBillingOrg>> {
    let only: string[] | undefined = q.orgId ? [q.orgId] : undefined;
    let except: string[] | undefined;
    if (q.payment === 'ok') except = await this.repo.unscopedOrgIdsInPaymentState(PAYMENT_STATES.filter((s) => s !== 'ok'));
    else if (q.payment) {
      const inState = await this.repo.unscopedOrgIdsInPaymentState([q.payment]);
      only = only ? only.filter((id) => inState.includes(id)) : inState;
    }
    const rows = await this.orgs.activatedOrgsPage({ limit: q.limit, after: decodeCursor(q.cursor), only, except });
    const states = new Map((await this.paymentStates(rows.slice(0, q.limit))).map((s) => [s.orgId, s]));
    return pageOf(
      rows,
      q.limit,
      (o) => ({ at: o.createdAt, id: o.id }),
      (o) => states.get(o.id)!,
    );
  }

  /** These orgs' payment states and what they owe. */
  async paymentStates(list: OrgRow[]): Promise<OpsBillingOrg[]> {
    const ids = list.map((o) => o.id);
    const [accounts, outstanding, runRates] = await Promise.all([this.repo.unscopedAccounts(ids), this.repo.unscopedOutstandingByOrg(ids), this.billing.runRates(list)]);
    const accountOf = new Map(accounts.map((a) => [a.orgId, a]));
    return list.map((org) => {
      const run = runRates.get(org.id);
      const amounts = amountsOf(
        run?.byCurrency,
        outstanding.filter((o) => o.orgId === org.id),
      );
      const main = amounts[0];
      return {
        orgId: org.id,
        legalName: org.legalName,
        slug: org.slug,
        orgStatus: org.status,
        assignedAmId: org.assignedAmId,
        ...dunningOf(accountOf.get(org.id)),
        openInvoices: amounts.reduce((n, a) => n + a.openInvoices, 0),
        outstandingCents: main?.outstandingCents ?? 0,
        currency: main?.currency ?? DEFAULT_CURRENCY,
        monthlyRunRateCents: main?.monthlyRunRateCents ?? 0,
        amounts,
        specialistInstances: run?.instances ?? 0,
        skipped: run?.skipped ?? [],
      };
    });
  }

  private range(q: { from?: string; to?: string }): { from: string; to: string } {
    return opsRange(q, dayOf(this.clock.now()));
  }

  /** Reads where the rollup ends and the ledger's totals of the days after it (today, mostly), once per request. */
  private async source(r: Range): Promise<RangeSource> {
    const rolledThrough = (await this.repo.lastRolledDay()) ?? addDays(r.from, -1);
    const live: RangeSource['live'] = [];
    for (let day = rolledThrough >= r.from ? addDays(rolledThrough, 1) : r.from; day <= r.to; day = addDays(day, 1)) {
      for (const t of await this.agent.ledgerTotals(startOf(day), startOf(addDays(day, 1)))) {
        if (!r.scope || t.orgId === r.scope.orgId) live.push({ ...t, day });
      }
    }
    return { ...r, rolledThrough, live };
  }

  /** Totals per key over the range: rolled days from the rollup, later days from the live ledger totals. */
  private async sliced(group: CostGroup, src: RangeSource): Promise<Row[]> {
    const rolled = { from: src.from, to: src.rolledThrough < src.to ? src.rolledThrough : src.to };
    const rows: Row[] = src.rolledThrough < src.from ? [] : src.scope ? await this.repo.costsBy(src.scope, group, rolled) : await this.repo.unscopedCostsBy(group, rolled);
    const merged = new Map(rows.map((x) => [x.key, { ...x }]));
    for (const t of src.live) {
      const key = group === 'day' ? t.day : group === 'org' ? t.orgId : group === 'osa' ? t.osaId : t.purpose;
      const acc = merged.get(key) ?? { key, costMicroUsd: 0, calls: 0, inputTokens: 0, outputTokens: 0 };
      acc.costMicroUsd += t.costMicroUsd;
      acc.calls += t.calls;
      acc.inputTokens += t.inputTokens;
      acc.outputTokens += t.outputTokens;
      merged.set(key, acc);
    }
    return [...merged.values()];
  }

  /** One point per day of the range, zero where nothing was spent. */
  private series(r: { from: string; to: string }, rows: Row[]) {
    const byDay = new Map(rows.map((x) => [x.key, x]));
    const out: PlatformCosts['trend'] = [];
    for (let day = r.from; day <= r.to; day = addDays(day, 1)) out.push({ day, costMicroUsd: byDay.get(day)?.costMicroUsd ?? 0, calls: byDay.get(day)?.calls ?? 0 });
    return out;
  }

  /** OSA totals folded into their catalog Specialist (one Specialist on N orgs is one slice here). */
  private async bySpecialist(scope: OrgScope | null, byOsa: Row[]): Promise<CostSlice[]> {
    const specialists = await this.assignments.specialistsOf(
      scope,
      byOsa.map((o) => o.key).filter((k): k is string => k !== null),
    );
    const merged = new Map<string, CostSlice>();
    for (const o of byOsa) {
      const s = o.key ? specialists.get(o.key) : undefined;
      const key = s?.specialistId ?? null;
      const acc = merged.get(key ?? '') ?? { key, label: s?.name ?? 'No Specialist', costMicroUsd: 0, calls: 0, inputTokens: 0, outputTokens: 0 };
      acc.costMicroUsd += o.costMicroUsd;
      acc.calls += o.calls;
      acc.inputTokens += o.inputTokens;
      acc.outputTokens += o.outputTokens;
      merged.set(key ?? '', acc);
    }
    return sortSlices([...merged.values()]);
  }
}

/** An org's monthly fee and what it owes, per currency (never summed across currencies), largest fee first. */
function amountsOf(runRate: Map<string, number> | undefined, owed: Array<{ currency: string; openInvoices: number; outstandingCents: number }>): OpsBillingOrg['amounts'] {
  const byCurrency = new Map<string, OpsBillingOrg['amounts'][number]>();
  const of = (currency: string) => byCurrency.get(currency) ?? byCurrency.set(currency, { currency, monthlyRunRateCents: 0, outstandingCents: 0, openInvoices: 0 }).get(currency)!;
  for (const [currency, cents] of runRate ?? []) of(currency).monthlyRunRateCents += cents;
  for (const o of owed) {
    of(o.currency).outstandingCents += o.outstandingCents;
    of(o.currency).openInvoices += o.openInvoices;
  }
  return [...byCurrency.values()].sort((a, b) => b.monthlyRunRateCents - a.monthlyRunRateCents || b.outstandingCents - a.outstandingCents || a.currency.localeCompare(b.currency));
}

const sum = (rows: Totals[]) => rows.reduce((n, r) => n + r.costMicroUsd, 0);
const slice = (r: Row, label: string): CostSlice => ({ key: r.key, label, costMicroUsd: r.costMicroUsd, calls: r.calls, inputTokens: r.inputTokens, outputTokens: r.outputTokens });
const sortSlices = (s: CostSlice[]) => s.sort((a, b) => b.costMicroUsd - a.costMicroUsd || a.label.localeCompare(b.label));
