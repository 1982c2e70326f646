import type { InvoicePeriod } from '../../contracts/billing.js';
import { resolveRate, type RateWindow, type ResolvedRate } from '../specialists/index.js';

/**
 * The billing engine's arithmetic (spec 2.8), pure: calendar days in UTC, money in integer cents.
 *
 * Rounding rule: a line is `sum(days at rate r x r cents) / days in the month`, computed exactly
 * in integers and rounded once, half up, to the cent. When a line has several rate periods, each
 * period shows the difference of the rounded running totals, so the periods add up to the line
 * exactly and none is more than half a cent from its exact share.
 */

const DAY_MS = 86_400_000;

export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Midnight UTC starting a day (YYYY-MM-DD). */
export function dayStart(day: string): Date {
  return new Date(`${day}T00:00:00Z`);
}

export function addDays(day: string, n: number): string {
  return dayOf(new Date(dayStart(day).getTime() + n * DAY_MS));
}

export function daysBetween(from: string, toExclusive: string): number {
  return Math.round((dayStart(toExclusive).getTime() - dayStart(from).getTime()) / DAY_MS);
}

export function periodOf(day: string): string {
  return day.slice(0, 7);
}

/** The first day of a month `YYYY-MM`, the first day of the next one, and its length. */
export function monthBounds(period: string): { first: string; next: string; days: number } {
  const [y, m] = period.split('-').map(Number) as [number, number];
  const first = `${period}-01`;
  const next = dayOf(new Date(Date.UTC(y, m, 1)));
  return { first, next, days: daysBetween(first, next) };
}

export function previousPeriod(period: string): string {
  return periodOf(addDays(monthBounds(period).first, -1));
}

/** n / d rounded half up, for n >= 0 and d > 0, in integers. */
export function roundHalfUp(n: number, d: number): number {
  return Math.floor((2 * n + d) / (2 * d));
}

export function toCents(amount: number): number {
  return Math.round(amount * 100);
}

/** An OSA's rate fields as they were from `effectiveOn` (a row of the rate history). */
export interface OsaRateVersion extends RateWindow {
  effectiveOn: string;
}
/** The catalog rate of the Specialist from `effectiveOn`. */
export interface CatalogRateVersion {
  effectiveOn: string;
  base_rate: number | null;
  currency: string | null;
}

/** The version in force on a day: the last one made on or before it (else the first). */
function versionOn<T extends { effectiveOn: string }>(versions: readonly T[], day: string): T | undefined {
  let found: T | undefined = versions[0];
  for (const v of versions) if (v.effectiveOn <= day) found = v;
  return found;
}

/**
 * Spec 2.3 on a given day, with the rate history: the OSA as it stood that day (its latest
 * version made on or before the day), its override when its window covers the day, else the
 * catalog rate as it stood that day, else null. Versions are sorted oldest first.
 */
export function rateOn(day: string, osaVersions: readonly OsaRateVersion[], catalogVersions: readonly CatalogRateVersion[]): ResolvedRate | null {
  const osa = versionOn(osaVersions, day) ?? { monthlyRate: null, rateEffectiveFrom: null, rateEffectiveUntil: null };
  return resolveRate(osa, versionOn(catalogVersions, day) ?? null, day);
}

export interface ProratedLine {
  daysActive: number;
  daysInMonth: number;
  amountCents: number;
  currency: string | null;
  periods: InvoicePeriod[];
}

/** The days of a month an OSA is assigned and billable: [from, until). */
function billedSpan(input: { period: string; startsOn: string; endsOn: string | null }): { from: string; until: string } {
  const month = monthBounds(input.period);
  return { from: input.startsOn > month.first ? input.startsOn : month.first, until: input.endsOn && input.endsOn < month.next ? input.endsOn : month.next };
}

/**
 * One OSA's lines for a month, one per currency its rates had (a catalog that changed currency
 * mid-month gives two; almost always one). None: no day of the month had a rate (or none was
 * billable). `assignedDays` tells the two apart: billable days there were, rated or not.
 */
export function prorateLines(input: { period: string; startsOn: string; endsOn: string | null; rateOn: (day: string) => ResolvedRate | null }): { lines: ProratedLine[]; assignedDays: number } {
  const { from, until } = billedSpan(input);
  const currencies = new Set<string>();
  for (let d = from; d < until; d = addDays(d, 1)) {
    const rate = input.rateOn(d);
    if (rate) currencies.add(rate.currency);
  }
  return { lines: [...currencies].map((currency) => prorateLine({ ...input, currency })), assignedDays: from < until ? daysBetween(from, until) : 0 };
}

/**
 * One OSA's line for a month: billed for each day in [startsOn, endsOn) inside the month (the
 * day of unassignment is not billed), at the rate of that day. Days without a rate (or, with
 * `currency`, a rate in another currency) are not billed.
 */
export function prorateLine(input: { period: string; startsOn: string; endsOn: string | null; rateOn: (day: string) => ResolvedRate | null; currency?: string }): ProratedLine {
  const month = monthBounds(input.period);
  const { from, until } = billedSpan(input);
  const runs: Array<{ from: string; to: string; days: number; cents: number; source: ResolvedRate['source']; currency: string }> = [];
  for (let d = from; d < until; d = addDays(d, 1)) {
    const rate = input.rateOn(d);
    if (!rate || (input.currency && rate.currency !== input.currency)) continue;
    const cents = toCents(rate.amount);
    const last = runs.at(-1);
    if (last && last.cents === cents && last.source === rate.source && last.currency === rate.currency && addDays(last.to, 1) === d) {
      last.to = d;
      last.days++;
    } else {
      runs.push({ from: d, to: d, days: 1, cents, source: rate.source, currency: rate.currency });
    }
  }
  let exact = 0;
  let billed = 0;
  const periods = runs.map((r): InvoicePeriod => {
    exact += r.days * r.cents;
    const runningTotal = roundHalfUp(exact, month.days);
    const amountCents = runningTotal - billed;
    billed = runningTotal;
    return { from: r.from, to: r.to, days: r.days, monthlyRateCents: r.cents, source: r.source, amountCents };
  });
  return {
    daysActive: runs.reduce((n, r) => n + r.days, 0),
    daysInMonth: month.days,
    amountCents: billed,
    currency: runs[0]?.currency ?? null,
    periods,
  };
}

/**
 * The first day an OSA is billed (spec 2.8): the assignment has taken effect (the org is active),
 * the trial is over (the day after its end date, when the client started one) and the org's
 * `startDate` has come.
 */
export function billingStartDay(osa: { createdOn: string }, org: { activatedOn: string | null; trialEndDate: string | null; trialStarted: boolean; startDate: string | null }): string | null {
  if (!org.activatedOn) return null;
  const candidates = [osa.createdOn, org.activatedOn];
  if (org.trialStarted && org.trialEndDate) candidates.push(addDays(org.trialEndDate, 1));
  if (org.startDate) candidates.push(org.startDate);
  return candidates.reduce((a, b) => (a > b ? a : b));
}
