import { and, eq, lt, or, type Column, type SQL } from 'drizzle-orm';
import type { Keyset } from '../http/pagination.js';

/** An ILIKE pattern matching `q` anywhere, with `%`, `_` and `\` taken literally. */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Rows after the keyset in (timestamp desc, id desc) order; undefined on the first page. */
export function olderThan(at: Column, id: Column, k: Keyset | undefined): SQL | undefined {
  return k ? or(lt(at, k.at), and(eq(at, k.at), lt(id, k.id))) : undefined;
}
