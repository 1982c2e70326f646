export const MAX_OVERRIDE_RATE = 99999;
export const MIN_OVERRIDE_RATE = 1;

export interface RateWindow {
  monthlyRate: number | null;
  rateEffectiveFrom: string | null;
  rateEffectiveUntil: string | null;
}

export interface ResolvedRate {
  amount: number;
  currency: string;
  source: 'override' | 'specialist';
}

/** Whether the override's window covers a day (YYYY-MM-DD); open ends are unbounded. */
export function overrideActive(osa: RateWindow, day: string): boolean {
  if (osa.monthlyRate == null) return false;
  if (osa.rateEffectiveFrom && day < osa.rateEffectiveFrom) return false;
  if (osa.rateEffectiveUntil && day > osa.rateEffectiveUntil) return false;
  return true;
}

/** A catalog rate as stored (`monthly_rate_config`, or a version of it); null or a null base_rate: none. */
export type CatalogRate = { base_rate: number | null; currency: string | null } | null | undefined;

/** The currency of an override on a Specialist without a catalog currency. */
export const DEFAULT_CURRENCY = 'USD';

/**
 * Rate resolution of spec 2.3: the OSA override when its window is active, else the catalog
 * default, else null (no rate: billing skips the Specialist). The currency is the catalog's.
 */
export function resolveRate(osa: RateWindow, catalog: CatalogRate, day: string): ResolvedRate | null {
  const currency = catalog?.currency ?? DEFAULT_CURRENCY;
  if (overrideActive(osa, day)) return { amount: osa.monthlyRate!, currency, source: 'override' };
  if (catalog && catalog.base_rate != null && Number.isFinite(catalog.base_rate)) return { amount: catalog.base_rate, currency, source: 'specialist' };
  return null;
}
