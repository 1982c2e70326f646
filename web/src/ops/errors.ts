import { FieldErrorSchema } from '@contracts';
import type { z } from 'zod';
import { ApiError } from '../api/client';

/** Field messages keyed by their full path (`slug`, `corporateDomains.1`), first message wins. */
export type FieldErrors = Record<string, string>;

/**
 * The field errors of an API refusal: the `details` list of a 400 `validation_failed`, and the
 * `details.field` of a 409 `conflict` (a slug taken meanwhile) carrying the error's message.
 */
export function apiFieldErrors(error: unknown): FieldErrors {
  if (!(error instanceof ApiError)) return {};
  const errors: FieldErrors = {};
  if (Array.isArray(error.details)) {
    for (const item of error.details) {
      const parsed = FieldErrorSchema.safeParse(item);
      if (!parsed.success) continue;
      const field = parsed.data.field.replace(/^body\./, '');
      errors[field] ??= parsed.data.message;
    }
  } else if (error.details && typeof error.details === 'object' && 'field' in error.details) {
    const field = (error.details as { field: unknown }).field;
    if (typeof field === 'string') errors[field] = error.message;
  }
  return errors;
}

/** The same shape from a client-side parse with a shared contract schema. */
export function zodFieldErrors(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) errors[issue.path.map(String).join('.') || 'form'] ??= issue.message;
  return errors;
}

/** The message for an alert: the errors not shown beside a field, or the error itself. */
export function unshownErrorMessage(error: unknown, fields: FieldErrors, isShown: (field: string) => boolean): string | null {
  if (!error) return null;
  const unshown = Object.keys(fields).filter((field) => !isShown(field));
  if (unshown.length > 0) return unshown.map((field) => `${field}: ${fields[field]}`).join('; ');
  if (Object.keys(fields).length > 0) return null;
  return error instanceof Error ? error.message : 'Something went wrong.';
}

/** The answer of a route the server does not have (yet): 404 "Route not found", not an unknown id. */
export function isMissingEndpoint(error: unknown): boolean {
  return error instanceof ApiError && error.statusCode === 404 && error.message === 'Route not found';
}
