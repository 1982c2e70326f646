import { z } from 'zod';

/** The parts environment variables are read with: an empty value counts as unset everywhere. */

export const intFrom = (def: number, min = 0) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min))
    .optional()
    .transform((v) => v ?? def);

export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

export const optionalUrl = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
  .pipe(z.url({ message: 'must be a URL' }).optional());

/** `true` or `false`; unset is false. */
export const flag = z
  .enum(['true', 'false'])
  .optional()
  .transform((v) => v === 'true');

/** One of `values`, `def` when unset. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T, def: T[number]) =>
  z
    .enum(values)
    .optional()
    .transform((v): T[number] => v ?? def);

/** A comma-separated list, each item trimmed, empty items dropped. */
export const list = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** A base URL without its trailing slashes (paths are appended to it). */
export const baseUrl = (v: string | undefined): string | undefined => v?.replace(/\/+$/, '');

/**
 * The sweeper's threshold: a turn or inbound event still queued this long lost its request or
 * job. Read by every module that sweeps its own stranded work (conversations, channels).
 */
export const STRANDED_AFTER_MS = intFrom(30_000, 1000);
