import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  beforeAll(async () => {
    app = await startTestApp();
    doc = (await app.get('/api/openapi.json')).body as Doc;
  });
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
});
