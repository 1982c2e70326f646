import type { OsaDto } from '@contracts';

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso.length === 10 ? `${iso}T00:00:00` : iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleDateString();
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function formatMoney(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: 2 }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** "$1,200.00 / month · override" or "· catalog"; the resolved rate of spec 2.3. */
export function formatRate(rate: OsaDto['rate']): string {
  if (!rate) return 'No rate';
  return `${formatMoney(rate.amount, rate.currency)} / month · ${rate.source === 'override' ? 'override' : 'catalog'}`;
}

/** A uuid shortened for a table cell. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** A file size as people read it: `300 bytes`, `12 KB`, `1.5 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
}
