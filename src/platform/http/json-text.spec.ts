import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JsonText } from './json-text.js';
import { encodeCursor, pageOf, pageSchema, pageText } from './pagination.js';

const Item = z.object({ id: z.string(), count: z.number() });
type Item = z.infer<typeof Item>;

// Sent as it is by JsonTextAdapter and checked like any body: response-check.spec.ts.
describe('JsonText', () => {
  it('stands for its value where a serialiser meets it anyway', () => {
    const text = new JsonText<Item>('{"id" : "a", "count" : 1}');
    expect(text.parse()).toEqual({ id: 'a', count: 1 });
    expect(JSON.stringify({ page: text })).toBe('{"page":{"id":"a","count":1}}');
  });
});

describe('pageText', () => {
  const rows = [
    { id: '3f1c1d9e-0000-4000-8000-000000000002', at: new Date('2031-05-06T07:08:09.123Z'), count: 2 },
    { id: '3f1c1d9e-0000-4000-8000-000000000001', at: new Date('2031-05-06T07:08:09.122Z'), count: 1 },
  ];
  const key = (r: (typeof rows)[number]) => ({ at: r.at, id: r.id });
  const toItem = (r: (typeof rows)[number]): Item => ({ id: r.id, count: r.count });
  const written = (items: Item[]) => new JsonText<Item[]>(JSON.stringify(items));

  it('is the body pageOf gives for the same rows, with a further row and without', () => {
    const withMore = pageOf(rows, 1, key, toItem);
    expect(withMore.nextCursor).toBe(encodeCursor(key(rows[0]!)));
    expect(pageText(written([toItem(rows[0]!)]), key(rows[0]!)).text).toBe(JSON.stringify(withMore));
    expect(pageText(written(rows.map(toItem)), undefined).text).toBe(JSON.stringify(pageOf(rows, 2, key, toItem)));
    expect(pageSchema(Item).safeParse(pageText(written([]), undefined).parse()).success).toBe(true);
  });
});
