import { z } from 'zod';
import type { PageOf } from '../../contracts/pages.js';
import { AppError } from '../errors/app-error.js';
import { JsonText } from './json-text.js';

/** `?limit=&cursor=` of API-MAP.md: limit 1..200 (default 50), an opaque cursor. */
export const PageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});

const CursorIdSchema = z.uuid();

export interface Keyset {
  /** The sort timestamp of the last item of the page. */
  at: Date;
  id: string;
}

export function encodeCursor(k: Keyset): string {
  return Buffer.from(JSON.stringify([k.at.toISOString(), k.id])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): Keyset | undefined {
  if (!cursor) return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(at);
    if (Number.isNaN(date.getTime()) || typeof id !== 'string' || !CursorIdSchema.safeParse(id).success) throw new Error('bad cursor');
    return { at: date, id };
  } catch {
    throw new AppError('validation_failed', 'Invalid query', { details: [{ field: 'query.cursor', message: 'Invalid cursor' }] });
  }
}

/**
 * The cursor of a list whose sort key is not (timestamp, id), such as an org's invoices by (period,
 * currency): the key's parts, opaque to the client.
 */
export function encodeKeyCursor(key: readonly string[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The key of a cursor made by `encodeKeyCursor`, checked with `schema`; 400 `validation_failed` otherwise. */
export function decodeKeyCursor<T extends z.ZodType<readonly string[]>>(cursor: string | undefined, schema: T): z.infer<T> | undefined {
  if (!cursor) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const key = schema.safeParse(parsed);
  if (!key.success) throw new AppError('validation_failed', 'Invalid query', { details: [{ field: 'query.cursor', message: 'Invalid cursor' }] });
  return key.data;
}

/** `{ items, nextCursor }` from a page fetched with limit + 1 rows. */
export function pageOf<T, R>(rows: T[], limit: number, key: (row: T) => Keyset, map: (row: T) => R): PageOf<R> {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  return { items: page.map(map), nextCursor: more ? encodeCursor(key(page[page.length - 1]!)) : null };
}

/**
 * `{ items, nextCursor }` as JSON text, from a page's items already written as a JSON array (at
 * most `limit` of them) and the keyset of its last item when a further item exists: the body
 * `pageOf` gives, for a list whose statement writes its items' JSON itself.
 */
export function pageText<T>(items: JsonText<T[]>, next: Keyset | undefined): JsonText<PageOf<T>> {
  return new JsonText(`{"items":${items.text},"nextCursor":${next ? JSON.stringify(encodeCursor(next)) : 'null'}}`);
}

export { pageSchema } from '../../contracts/pages.js';

/**
 * A list bounded by its parent (an org's grants, the 13 industries, a message's revisions): the
 * whole list as the one page of `{ items, nextCursor }`, so every list has the same shape.
 */
export function onePage<T>(items: T[]): PageOf<T> {
  return { items, nextCursor: null };
}
