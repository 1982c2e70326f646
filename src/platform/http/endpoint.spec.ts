import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ENDPOINT, Endpoint, type EndpointSpec } from './endpoint.js';

const Item = z.object({ id: z.uuid(), name: z.string(), archivedAt: z.string().nullable() });
const item = { id: '00000000-0000-4000-8000-000000000000', name: 'A', archivedAt: null };

// Compile-time half: `npm run typecheck` fails when an @ts-expect-error below stops being an error.
class Routes {
  @Endpoint({ summary: 'matches', response: Item })
  get() {
    return item;
  }

  @Endpoint({ summary: 'matches, later', response: Item })
  async getLater() {
    return item;
  }

  // @ts-expect-error a Date where the JSON body has a string
  @Endpoint({ summary: 'a Date', response: Item })
  withDate() {
    return { ...item, archivedAt: new Date() };
  }

  // @ts-expect-error a field of the schema missing
  @Endpoint({ summary: 'missing name', response: Item })
  async missing() {
    return { id: item.id, archivedAt: null };
  }

  // @ts-expect-error `any` escapes every schema
  @Endpoint({ summary: 'any', response: Item })
  untyped() {
    return JSON.parse('{}') as unknown as any;
  }

  // @ts-expect-error a body on a 204 route
  @Endpoint({ summary: 'no content', response: null, status: 204 })
  removed() {
    return item;
  }

  @Endpoint({ summary: 'no content', response: null, status: 204 })
  async remove(): Promise<void> {}

  @Endpoint({ summary: 'a file', response: { raw: 'text/plain' } })
  text() {
    return 'plain';
  }

  // @ts-expect-error every route says what it answers
  @Endpoint({ summary: 'silent' })
  silent() {
    return item;
  }
}

describe('@Endpoint', () => {
  it('keeps the spec as the route metadata the catalog and the response check read', () => {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the method is read for its metadata, never called
    const spec = Reflect.getMetadata(ENDPOINT, Routes.prototype.get) as EndpointSpec;
    expect(spec.response).toBe(Item);
    // eslint-disable-next-line @typescript-eslint/unbound-method -- read for its metadata, never called
    expect((Reflect.getMetadata(ENDPOINT, Routes.prototype.remove) as EndpointSpec).response).toBeNull();
  });
});
