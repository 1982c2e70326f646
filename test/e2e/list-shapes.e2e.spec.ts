import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCast, type DemoCast } from '../support/tenants.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** The two lists API-MAP "Conventions" lets answer a bare array. */
const BARE_ARRAY_LISTS = new Set(['/api/notifications', '/api/dev/mail']);

interface Schema {
  type?: string | string[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  $ref?: string;
  nullable?: boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
}
interface Doc {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>>;
  components?: { schemas?: Record<string, Schema> };
}

function resolve(doc: Doc, s: Schema | undefined): Schema | undefined {
  if (s?.$ref) return resolve(doc, doc.components?.schemas?.[s.$ref.replace('#/components/schemas/', '')]);
  return s;
}

const isArray = (s: Schema) => s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array'));

/** Why a list's success schema is not `{ items: [...], nextCursor: string | null }`, or null when it is. */
function listShapeProblem(doc: Doc, s: Schema): string | null {
  if (isArray(s)) return 'answers a bare array';
  const items = resolve(doc, s.properties?.items);
  const next = resolve(doc, s.properties?.nextCursor);
  if (!items || !isArray(items)) return '`items` is not an array';
  if (!next) return 'no `nextCursor`';
  const variants = [next, ...(next.anyOf ?? next.oneOf ?? []).map((x) => resolve(doc, x) ?? {})];
  const types = variants.flatMap((v) => [v.type, v.nullable ? 'null' : undefined].flat());
  if (!types.includes('string') || !types.includes('null')) return '`nextCursor` is not string | null';
  if (!s.required?.includes('items') || !s.required?.includes('nextCursor')) return '`items` and `nextCursor` are not both required';
  return null;
}

describe('list shapes (API-MAP Conventions: every list answers { items, nextCursor })', () => {
  let app: TestApp;
  let doc: Doc;
  let cast: DemoCast;
  beforeAll(async () => {
    app = await startTestApp();
    doc = (await app.get('/api/openapi.json')).body as Doc;
    cast = await demoCast(app);
  });

  /** Every page of a list at `limit` per page, following nextCursor. */
  async function walk(path: string, token: string, limit: number): Promise<Array<{ id: string }>> {
    const seen: Array<{ id: string }> = [];
    let cursor: string | null = null;
    do {
      const url: string = `${path}${path.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await app.get<{ items: Array<{ id: string }>; nextCursor: string | null }>(url, { token });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(limit);
      seen.push(...res.body.items);
      cursor = res.body.nextCursor;
    } while (cursor && seen.length < 1000);
    return seen;
  }
  afterAll(() => app?.close());

  it('every GET route whose success body is a list answers { items, nextCursor }, except the two API-MAP names', () => {
    const lists: string[] = [];
    const problems: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      const get = ops.get;
      if (!get) continue;
      const ok = Object.entries(get.responses ?? {}).find(([status]) => /^2\d\d$/.test(status))?.[1];
      const schema = resolve(doc, ok?.content?.['application/json']?.schema);
      if (!schema) continue;
      const looksLikeList = isArray(schema) || schema.properties?.items !== undefined;
      if (!looksLikeList) continue;
      lists.push(path);
      if (BARE_ARRAY_LISTS.has(path)) {
        expect(isArray(schema), `${path} is a bare array per API-MAP`).toBe(true);
        continue;
      }
      const problem = listShapeProblem(doc, schema);
      if (problem) problems.push(`GET ${path}: ${problem}`);
    }
    // The walk found the lists it is about (a document without them would pass vacuously).
    expect(lists).toEqual(expect.arrayContaining(['/api/notifications', '/api/dev/mail', '/api/am/orgs', '/api/admin/users']));
    expect(problems).toEqual([]);
  });

  it.each([
    ['GET /admin/members (oldest membership first)', '/api/admin/members', 'owner'],
    ['GET /admin/members for staff naming the org', '/api/admin/members?orgId=ACME', 'superadmin'],
    ['GET /am/experts/list (newest first)', '/api/am/experts/list', 'am'],
  ] as const)('%s pages with the keyset cursor: one item per page gives the whole list once, in order', async (_, rawPath, who) => {
    const path = rawPath.replace('ACME', cast.acmeId);
    const whole = (await app.get(`${path}${path.includes('?') ? '&' : '?'}limit=200`, { token: cast[who] })).body;
    expect(whole.nextCursor).toBeNull();
    expect(whole.items.length).toBeGreaterThanOrEqual(2);
    const paged = await walk(path, cast[who], 1);
    expect(paged.map((i) => i.id)).toEqual(whole.items.map((i: { id: string }) => i.id));
  });

  it('refuses a cursor it did not make (400 validation_failed on query.cursor)', async () => {
    for (const path of ['/api/admin/members', '/api/am/experts/list']) {
      const res = await app.get(`${path}?cursor=not-a-cursor`, { token: cast.superadmin });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', details: [{ field: 'query.cursor' }] });
    }
  });
});
