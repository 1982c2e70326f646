import type { z } from 'zod';
import type { FieldError } from '../../contracts/errors.js';

/** Field errors of a failed zod parse, in the `details` shape of API-MAP.md. */
export function zodFieldErrors(error: z.ZodError, prefix?: string): FieldError[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return { field: [prefix, path].filter(Boolean).join('.') || (prefix ?? 'body'), message: issue.message };
  });
}
