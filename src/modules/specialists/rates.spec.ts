import { describe, expect, it } from 'vitest';
import { resolveRate } from './rates.js';

const catalog = { base_rate: 1200, currency: 'EUR' };
const osa = (monthlyRate: number | null, from: string | null = null, until: string | null = null) => ({ monthlyRate, rateEffectiveFrom: from, rateEffectiveUntil: until });

describe('rate resolution (spec 2.3)', () => {
  it('uses the override inside its window, else the catalog rate, else null', () => {
    expect(resolveRate(osa(null), catalog, '2026-11-22')).toEqual({ amount: 1200, currency: 'EUR', source: 'specialist' });
    expect(resolveRate(osa(900), catalog, '2026-11-22')).toEqual({ amount: 900, currency: 'EUR', source: 'override' });
    expect(resolveRate(osa(900, '2026-12-01'), catalog, '2026-11-22')!.source).toBe('specialist');
    expect(resolveRate(osa(900, '2026-11-01', '2026-11-22'), catalog, '2026-11-22')!.source).toBe('override');
    expect(resolveRate(osa(900, null, '2026-11-21'), catalog, '2026-11-22')!.source).toBe('specialist');
    expect(resolveRate(osa(null), null, '2026-11-22')).toBeNull();
  });

  it('is null without an active override when the catalog has no rate (absent, or a version without one)', () => {
    expect(resolveRate(osa(null), { base_rate: null, currency: null }, '2026-11-22')).toBeNull();
    expect(resolveRate(osa(900, '2026-12-01'), { base_rate: null, currency: null }, '2026-11-22')).toBeNull();
    expect(resolveRate(osa(900), null, '2026-11-22')).toEqual({ amount: 900, currency: 'USD', source: 'override' });
  });
});
