import type { AppError } from '../../platform/errors/app-error.js';
import { securityEvent, type SecurityEventName } from '../../platform/observability/security-log.js';
import { rateLimitError, type Limiter } from '../../platform/rate-limit/rate-limit.service.js';

export interface GuessBudget {
  /** The budget of wrong guesses, and whose it is (a user, or an address from one IP). */
  limiter: Limiter;
  key: string;
  /** What a failure is logged as. */
  event: SecurityEventName;
  /** Who and from where, for the log lines: identifiers and the IP, never the guess itself. */
  fields: Record<string, unknown>;
  /** The 429 once the budget is spent. */
  lockedMessage: string;
}

/**
 * Checks one guess (a password, a code) against a budget of wrong guesses. A point is taken before
 * the check, so that parallel guesses cannot pass the limit together, and given back unless the
 * guess was wrong; a check that throws is no guess. A spent budget answers 429 (spec 7.1) even for
 * a right guess, until its window ends. Each wrong guess is a `security.<event>` line, and the one
 * that spends the budget a `security.lockout` line.
 */
export async function checkGuess(budget: GuessBudget, check: () => Promise<boolean>, wrong: () => AppError): Promise<void> {
  const reservation = await budget.limiter.reserve(budget.key);
  if (!reservation.allowed) {
    securityEvent(budget.event, { ...budget.fields, reason: 'locked_out' });
    throw rateLimitError(reservation, budget.lockedMessage);
  }
  let right: boolean;
  try {
    right = await check();
  } catch (err) {
    await reservation.refund();
    throw err;
  }
  if (right) {
    await reservation.refund();
    return;
  }
  securityEvent(budget.event, budget.fields);
  if (reservation.remaining === 0) {
    securityEvent('lockout', { ...budget.fields, after: budget.event, until: new Date(reservation.resetAtMs).toISOString() });
  }
  throw wrong();
}
