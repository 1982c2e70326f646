import { AppError } from '../../platform/errors/app-error.js';
import { addDays, dayStart } from './proration.js';

const DEFAULT_RANGE_DAYS = 30;
const MAX_RANGE_DAYS = 366;

/**
 * The range of an ops panel in UTC days, both ends included: `to` defaults to today, `from` to
 * 29 days before it; `from` after `to`, or more than 366 days, is a 400.
 */
export function opsRange(q: { from?: string; to?: string }, today: string): { from: string; to: string } {
  const to = q.to ?? today;
  const from = q.from ?? addDays(to, -(DEFAULT_RANGE_DAYS - 1));
  if (from > to) throw new AppError('validation_failed', 'Invalid query', { details: [{ field: 'query.from', message: 'Must not be after to' }] });
  if (dayStart(to).getTime() - dayStart(from).getTime() > MAX_RANGE_DAYS * 86_400_000) {
    throw new AppError('validation_failed', 'Invalid query', { details: [{ field: 'query.from', message: `At most ${MAX_RANGE_DAYS} days` }] });
  }
  return { from, to };
}
