import { AppError } from '../../platform/errors/app-error.js';
import type { Refusal } from './admin-users.rules.js';

/** A refusal of the pure rules as the error the API answers with. */
export function refused(r: Refusal): AppError {
  return new AppError(r.code, r.message);
}
