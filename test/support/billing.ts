import { Clock } from '../../src/platform/clock/clock.js';
import type { TestApp } from './test-app.js';

const DAY_MS = 86_400_000;

/**
 * Moves the app's business time into the next month (one hour past its start), so the current
 * month is closed and can be invoiced. Returns that month and the prorated amount of a line that
 * started on the day it was when called (spec 2.8: round half up of days / days in month x rate).
 */
export function closeCurrentMonth(app: TestApp) {
  const clock = app.running.app.get(Clock);
  const now = clock.now();
  const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  clock.advance(nextMonth - now.getTime() + 3600_000);
  const days = new Date(nextMonth - DAY_MS).getUTCDate();
  const activeDays = days - now.getUTCDate() + 1;
  return {
    period: now.toISOString().slice(0, 7),
    days,
    activeDays,
    prorated: (rateCents: number) => Math.floor((2 * activeDays * rateCents + days) / (2 * days)),
  };
}
