import { describe, expect, it } from 'vitest';
import { billingStartDay, monthBounds, previousPeriod, prorateLine, prorateLines, rateOn, roundHalfUp, type CatalogRateVersion, type OsaRateVersion } from './proration.js';

const catalog = (base_rate: number, effectiveOn = '2020-01-01'): CatalogRateVersion => ({ effectiveOn, base_rate, currency: 'USD' });
const osa = (effectiveOn: string, monthlyRate: number | null, from: string | null = null, until: string | null = null): OsaRateVersion => ({
  effectiveOn,
  monthlyRate,
  rateEffectiveFrom: from,
  rateEffectiveUntil: until,
});
const line = (period: string, startsOn: string, endsOn: string | null, osaVersions: OsaRateVersion[], catalogVersions = [catalog(3000)]) =>
  prorateLine({ period, startsOn, endsOn, rateOn: (day) => rateOn(day, osaVersions, catalogVersions) });

describe('calendar months', () => {
  it('knows 28-, 29-, 30- and 31-day months', () => {
    expect(monthBounds('2026-02').days).toBe(28);
    expect(monthBounds('2028-02').days).toBe(29);
    expect(monthBounds('2026-04').days).toBe(30);
    expect(monthBounds('2026-12')).toEqual({ first: '2026-12-01', next: '2027-01-01', days: 31 });
    expect(previousPeriod('2027-01')).toBe('2026-12');
  });
  it('rounds half up', () => {
    expect(roundHalfUp(5, 10)).toBe(1);
    expect(roundHalfUp(4, 10)).toBe(0);
    expect(roundHalfUp(15, 10)).toBe(2);
  });
});

describe('proration by calendar day (spec 2.8)', () => {
  const none = [osa('2020-01-01', null)];
  it('bills a full month at exactly the monthly rate, whatever its length', () => {
    for (const period of ['2026-02', '2026-04', '2026-05']) {
      expect(line(period, '2025-01-01', null, none)).toMatchObject({ amountCents: 300000, daysActive: monthBounds(period).days });
    }
  });

  it('starts mid-month in a 28-day month: days active / 28 x rate', () => {
    // 10 Feb .. 28 Feb = 19 days; 19/28 x 3000.00 = 2035.714... -> 2035.71
    expect(line('2026-02', '2026-02-10', null, none)).toMatchObject({ daysActive: 19, daysInMonth: 28, amountCents: 203571 });
  });

  it('ends mid-month in a 30-day month (the day of unassignment is not billed)', () => {
    // 1 Apr .. 17 Apr = 17 days (unassigned on the 18th); 17/30 x 3000.00 = 1700.00
    expect(line('2026-04', '2026-01-05', '2026-04-18', none)).toMatchObject({ daysActive: 17, daysInMonth: 30, amountCents: 170000 });
  });

  it('starts and ends inside a 31-day month', () => {
    // 5 Jul .. 20 Jul = 16 days; 16/31 x 3000.00 = 1548.387... -> 1548.39
    expect(line('2026-07', '2026-07-05', '2026-07-21', none)).toMatchObject({ daysActive: 16, daysInMonth: 31, amountCents: 154839 });
    // 1 day of a 31-day month at 99.99: 3.2254... -> 3.23
    expect(line('2026-07', '2026-07-31', null, none, [catalog(99.99)])).toMatchObject({ daysActive: 1, amountCents: 323 });
  });

  it('bills nothing outside the active days, and nothing for a same-day assign and unassign', () => {
    expect(line('2026-03', '2026-04-02', null, none)).toMatchObject({ daysActive: 0, amountCents: 0, periods: [] });
    expect(line('2026-03', '2026-01-01', '2026-03-01', none)).toMatchObject({ daysActive: 0, amountCents: 0 });
    expect(line('2026-03', '2026-03-09', '2026-03-09', none)).toMatchObject({ daysActive: 0, amountCents: 0 });
  });

  it('bills a mid-month rate change as an upgrade: old rate before the change day, new rate from it', () => {
    // Override 1000 from the start; on 11 Jun (30-day month) the AM raises it to 2500.
    const versions = [osa('2026-05-20', 1000), osa('2026-06-11', 2500)];
    const l = line('2026-06', '2026-05-20', null, versions);
    expect(l.periods).toEqual([
      { from: '2026-06-01', to: '2026-06-10', days: 10, monthlyRateCents: 100000, source: 'override', amountCents: 33333 },
      { from: '2026-06-11', to: '2026-06-30', days: 20, monthlyRateCents: 250000, source: 'override', amountCents: 166667 },
    ]);
    // 10/30 x 1000 + 20/30 x 2500 = 333.333 + 1666.667 = 2000.00, rounded once.
    expect(l.amountCents).toBe(200000);
  });

  it('bills a downgrade back to the catalog rate (override removed) the same way', () => {
    const versions = [osa('2026-01-01', 4000), osa('2026-02-15', null)];
    const l = line('2026-02', '2026-01-01', null, versions);
    expect(l.periods.map((p) => [p.days, p.monthlyRateCents, p.source])).toEqual([
      [14, 400000, 'override'],
      [14, 300000, 'specialist'],
    ]);
    expect(l.amountCents).toBe(350000);
  });

  it('applies an override window that starts and ends inside the month', () => {
    // Override 1500 from 8 Mar to 21 Mar inclusive (14 days); the catalog 3000 the other 17 days of 31.
    const l = line('2026-03', '2026-01-01', null, [osa('2026-01-01', 1500, '2026-03-08', '2026-03-21')]);
    expect(l.periods.map((p) => [p.from, p.to, p.days, p.source])).toEqual([
      ['2026-03-01', '2026-03-07', 7, 'specialist'],
      ['2026-03-08', '2026-03-21', 14, 'override'],
      ['2026-03-22', '2026-03-31', 10, 'specialist'],
    ]);
    // (7 x 3000 + 14 x 1500 + 10 x 3000) / 31 = 72000 / 31 = 2322.580... -> 2322.58
    expect(l.amountCents).toBe(232258);
    expect(l.periods.reduce((n, p) => n + p.amountCents, 0)).toBe(l.amountCents);
  });

  it('follows the catalog rate history when the catalog rate changes mid-month', () => {
    const l = line('2026-04', '2026-01-01', null, [osa('2026-01-01', null)], [catalog(3000, '2026-01-01'), catalog(3600, '2026-04-16')]);
    // 15/30 x 3000 + 15/30 x 3600 = 3300.00
    expect(l.amountCents).toBe(330000);
  });

  it('keeps each period within half a cent of its exact share while the periods add up to the line', () => {
    const versions = [osa('2026-01-01', 100.01), osa('2026-07-03', 200.03), osa('2026-07-17', 333.33)];
    const l = line('2026-07', '2026-01-01', null, versions);
    const exact = [2 * 10001, 14 * 20003, 15 * 33333].map((n) => n / 31);
    l.periods.forEach((p, i) => expect(Math.abs(p.amountCents - exact[i]!)).toBeLessThanOrEqual(0.5 + 1e-9));
    expect(l.amountCents).toBe(Math.round(exact.reduce((a, b) => a + b, 0)));
  });

  it('gives the same Specialist on two orgs two separate lines (each its own OSA)', () => {
    const acme = line('2026-04', '2026-04-01', null, [osa('2026-04-01', null)]);
    const hooli = line('2026-04', '2026-04-16', null, [osa('2026-04-16', 1200)]);
    expect([acme.amountCents, hooli.amountCents]).toEqual([300000, 60000]);
  });
});

describe('when billing starts', () => {
  const org = { activatedOn: '2026-03-01', trialEndDate: null, trialStarted: false, startDate: null };
  it('waits for the org to be active, the trial to end and the start date', () => {
    expect(billingStartDay({ createdOn: '2026-03-05' }, { ...org, activatedOn: null })).toBeNull();
    expect(billingStartDay({ createdOn: '2026-02-20' }, org)).toBe('2026-03-01');
    expect(billingStartDay({ createdOn: '2026-03-05' }, org)).toBe('2026-03-05');
    expect(billingStartDay({ createdOn: '2026-03-05' }, { ...org, trialStarted: true, trialEndDate: '2026-03-31' })).toBe('2026-04-01');
    // A trial end date the client never started (finished without invite) does not delay billing.
    expect(billingStartDay({ createdOn: '2026-03-05' }, { ...org, trialEndDate: '2026-03-31' })).toBe('2026-03-05');
    expect(billingStartDay({ createdOn: '2026-03-05' }, { ...org, startDate: '2026-03-15' })).toBe('2026-03-15');
  });
});

describe('rate resolution with the rate history (spec 2.3)', () => {
  it('uses the OSA as it stood that day', () => {
    const versions = [osa('2026-01-01', null), osa('2026-02-10', 900, null, '2026-02-20')];
    expect(rateOn('2026-02-09', versions, [catalog(3000)])).toEqual({ amount: 3000, currency: 'USD', source: 'specialist' });
    expect(rateOn('2026-02-10', versions, [catalog(3000)])).toEqual({ amount: 900, currency: 'USD', source: 'override' });
    expect(rateOn('2026-02-21', versions, [catalog(3000)])!.source).toBe('specialist');
    expect(rateOn('2026-02-21', versions, [])).toBeNull();
  });
});

describe('rateless days and currencies (spec 2.3: no rate, no charge)', () => {
  const none = [osa('2020-01-01', null)];
  const lines = (catalogVersions: CatalogRateVersion[], osaVersions = none, startsOn = '2025-01-01', endsOn: string | null = null) =>
    prorateLines({ period: '2026-04', startsOn, endsOn, rateOn: (day) => rateOn(day, osaVersions, catalogVersions) });
  const noRate = (effectiveOn = '2020-01-01'): CatalogRateVersion => ({ effectiveOn, base_rate: null, currency: null });

  it('gives no line for a month without a rated day, and tells that the OSA was assigned in it', () => {
    expect(lines([noRate()])).toEqual({ lines: [], assignedDays: 30 });
    // An override outside its window does not help; one inside it does, at USD without a catalog currency.
    expect(lines([noRate()], [osa('2020-01-01', 900, '2026-05-01')]).lines).toEqual([]);
    expect(lines([noRate()], [osa('2020-01-01', 900)]).lines).toEqual([expect.objectContaining({ currency: 'USD', amountCents: 90000, daysActive: 30 })]);
    // Not assigned in the month at all: nothing to skip either.
    expect(lines([noRate()], none, '2026-05-03')).toEqual({ lines: [], assignedDays: 0 });
  });

  it('bills only the days with a rate when the catalog rate is removed mid-month', () => {
    // 1..15 Apr at 3000.00, none from 16 Apr: 15/30 x 3000.00.
    expect(lines([catalog(3000), noRate('2026-04-16')]).lines).toEqual([expect.objectContaining({ daysActive: 15, amountCents: 150000 })]);
  });

  it('gives one line per currency when the catalog changes currency mid-month, never summing them', () => {
    const eur: CatalogRateVersion = { effectiveOn: '2026-04-11', base_rate: 3000, currency: 'EUR' };
    const result = lines([catalog(3000), eur]).lines;
    expect(result.map((l) => [l.currency, l.daysActive, l.amountCents])).toEqual([
      ['USD', 10, 100000],
      ['EUR', 20, 200000],
    ]);
  });
});
