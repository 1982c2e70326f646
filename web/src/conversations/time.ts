import { useSyncExternalStore } from 'react';
import { formatDateTime } from '../ops/format';

const DAY_MS = 24 * 3600_000;
const MINUTE_MS = 60_000;

const startOfDay = (date: Date) => new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();

/** The calendar day of a time in the reader's zone, as a key ("2025-03-14"). */
export function dayKey(iso: string): string {
  const date = new Date(iso);
  return `${date.getFullYear()}-${date.getMonth() + 1}-${date.getDate()}`;
}

/** A day as a separator reads it: "Today", "Yesterday", or the date. */
export function dayLabel(iso: string, now: Date): string {
  const days = Math.round((startOfDay(now) - startOfDay(new Date(iso))) / DAY_MS);
  if (days === 0) return 'Today';
  if (days === 1) return 'Yesterday';
  const date = new Date(iso);
  return date.toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long', ...(date.getFullYear() !== now.getFullYear() && { year: 'numeric' }) });
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });

/**
 * A time as people say it: "just now", "5 min. ago", "3 hr. ago" within the day; the clock time
 * for an earlier time of today or yesterday is not needed (the day separator says the day), so
 * older times read as their date.
 */
export function relativeTime(iso: string, now: Date): string {
  const at = new Date(iso);
  const elapsed = now.getTime() - at.getTime();
  if (elapsed < MINUTE_MS) return 'just now';
  if (elapsed < 3600_000) return relative.format(-Math.floor(elapsed / MINUTE_MS), 'minute');
  if (elapsed < 6 * 3600_000) return relative.format(-Math.floor(elapsed / 3600_000), 'hour');
  const clock = at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  const days = Math.round((startOfDay(now) - startOfDay(at)) / DAY_MS);
  if (days === 0) return clock;
  if (days === 1) return `Yesterday ${clock}`;
  return at.toLocaleDateString(undefined, { day: 'numeric', month: 'short', ...(at.getFullYear() !== now.getFullYear() && { year: 'numeric' }) });
}

/** The exact time, for a title on hover. */
export const exactTime = formatDateTime;

/** One clock for every relative time on the page, ticking once a minute while anything reads it. */
let now = new Date();
const readers = new Set<() => void>();
let ticker: ReturnType<typeof setInterval> | undefined;

function subscribe(onChange: () => void): () => void {
  readers.add(onChange);
  if (!ticker) now = new Date();
  ticker ??= setInterval(() => {
    now = new Date();
    for (const reader of readers) reader();
  }, MINUTE_MS);
  return () => {
    readers.delete(onChange);
    if (readers.size === 0) {
      clearInterval(ticker);
      ticker = undefined;
    }
  };
}

/** The current time, renewed every minute so relative times stay true. */
export function useNow(): Date {
  return useSyncExternalStore(subscribe, () => now);
}
