import { z } from 'zod';

/** Every list of the API (API-MAP.md "Conventions"): one page of items and the cursor of the next, null on the last. */
export const pageSchema = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });
export type PageOf<T> = { items: T[]; nextCursor: string | null };
