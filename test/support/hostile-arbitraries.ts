import fc from 'fast-check';
import type { JsonSchema } from './route-policies.js';

/**
 * Hostile inputs for the fuzzer, driven by the JSON schemas of the OpenAPI document (which are
 * generated from the routes' zod schemas): values that fit a schema, values shaped like it but
 * wrong in one place, and the classics (injection, traversal, encodings, sizes, prototypes).
 */

export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '1e309',
  '9'.repeat(400),
  "' OR '1'='1",
  '"; drop table users; --',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '__proto__',
  'constructor',
  '\ud800',
  '🦄'.repeat(60),
  'é'.repeat(300),
  'a'.repeat(70_000),
  '\r\nX-Injected: 1',
  '{"$gt":""}',
  'true',
  '[]',
  '2024-02-30T25:61:00Z',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
];

/** Path segments sent as they are: malformed percent-encoding, traversal, overlong UTF-8, sizes. */
export const HOSTILE_SEGMENTS = [
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AE%C0%AE',
  '..',
  '%2e%2e',
  '%2F',
  '%00',
  'a'.repeat(300),
  '__proto__',
  'constructor',
  '-1',
  '1e309',
  '%F0%9F%A6%84',
  "'%20OR%201=1",
  '{id}',
  '*',
];

export const HOSTILE_NUMBERS = [-1, 0, 1.5, -0.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, -(2 ** 31) - 1];

const MALFORMED_JSON = [
  '{',
  '{"a":',
  '[1,2',
  '{"a":1,}',
  "{'a':1}",
  'nul',
  '"unterminated',
  '\u0000',
  '{"a":1}{"b":2}',
  '['.repeat(3000) + ']'.repeat(3000),
  '{"a":'.repeat(2000) + '1' + '}'.repeat(2000),
  '1e99999',
];

const POLLUTION = ['{"__proto__":{"polluted":"yes"}}', '{"constructor":{"prototype":{"polluted":"yes"}}}', '{"a":{"__proto__":{"polluted":"yes"}}}'];

/** encodeURIComponent, or the raw text when it cannot be encoded (a lone surrogate). */
export function safeEncode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value.replace(/[\ud800-\udfff]/g, '%ED%A0%80');
  }
}

/** Strings of a pattern, when fast-check can read the pattern (it cannot read lookaheads). */
function matchingPattern(pattern: string, maxLength = Infinity): fc.Arbitrary<string> | undefined {
  try {
    return fc.stringMatching(new RegExp(pattern)).filter((v) => v.length <= maxLength);
  } catch {
    return undefined;
  }
}

interface Schema {
  type?: string;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  nullable?: boolean;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

/**
 * The document is OpenAPI 3.1: a nullable schema lists `null` among its types, and an exclusive
 * bound is a number. Read as one type with a `nullable` flag and plain bounds (an exclusive bound
 * taken as inclusive, as zod's refinements may still refuse a fitting value).
 */
const str = (schema: JsonSchema): Schema => {
  const { type, exclusiveMinimum, exclusiveMaximum, ...rest } = schema as Omit<Schema, 'type'> & { type?: string | string[]; exclusiveMinimum?: number; exclusiveMaximum?: number };
  const types = type === undefined ? [] : ([] as string[]).concat(type);
  const s: Schema = { ...rest, type: types.find((t) => t !== 'null') ?? types[0] };
  if (types.includes('null')) s.nullable = true;
  if (typeof exclusiveMinimum === 'number') s.minimum ??= exclusiveMinimum;
  if (typeof exclusiveMaximum === 'number') s.maximum ??= exclusiveMaximum;
  return s;
};

/** A value that fits the schema (as far as a JSON schema says: refinements of zod may still refuse it). */
export function fitting(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const s = str(schema);
  const base = ((): fc.Arbitrary<unknown> => {
    if (s.enum) return fc.constantFrom(...s.enum);
    const alternatives = s.anyOf ?? s.oneOf;
    if (alternatives) return fc.oneof(...alternatives.map((a) => fitting(a, depth + 1)));
    if (s.allOf?.length) return fitting(s.allOf[0]!, depth + 1);
    switch (s.type) {
      case 'string': {
        if (s.format === 'uuid') return fc.uuid();
        if (s.format === 'email') return fc.emailAddress();
        if (s.format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
        if (s.format === 'uri') return fc.webUrl();
        if (s.pattern) {
          const matching = matchingPattern(s.pattern, s.maxLength);
          if (matching) return matching;
        }
        return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 40), unit: 'grapheme' }).filter((v) => v.length >= (s.minLength ?? 0));
      }
      case 'integer':
        return fc.integer({ min: Math.max(s.minimum ?? -1000, -1e9), max: Math.min(s.maximum ?? 1000, 1e9) });
      case 'number':
        return fc.double({ min: s.minimum ?? -1000, max: s.maximum ?? 1000, noNaN: true, noDefaultInfinity: true });
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return fc.array(s.items && depth < 4 ? fitting(s.items, depth + 1) : fc.jsonValue({ maxDepth: 1 }), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 4, 4) });
      case 'object': {
        const props = s.properties ?? {};
        const record = fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, fitting(v, depth + 1)])), { requiredKeys: (s.required ?? []).filter((k) => k in props) });
        if (typeof s.additionalProperties === 'object' && depth < 4) {
          const extra = fc.dictionary(fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,10}$/), fitting(s.additionalProperties, depth + 1), { maxKeys: 3 });
          return fc.tuple(record, extra).map(([r, e]) => ({ ...e, ...r }));
        }
        return record;
      }
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  })();
  return s.nullable ? fc.option(base, { nil: null, freq: 5 }) : base;
}

/** A value the schema refuses: another type, out of its bounds, not in its enum, not its format. */
export function violating(schema: JsonSchema): fc.Arbitrary<unknown> {
  const s = str(schema);
  const wrongType: fc.Arbitrary<unknown>[] = [fc.constantFrom(...HOSTILE_NUMBERS), fc.constantFrom(true, false), fc.constant([]), fc.constant({}), fc.constantFrom(...HOSTILE_STRINGS)];
  if (!s.nullable) wrongType.push(fc.constant(null));
  const bounds: fc.Arbitrary<unknown>[] = [];
  if (s.type === 'string') {
    if (s.maxLength !== undefined) bounds.push(fc.constant('x'.repeat(s.maxLength + 1)));
    if (s.minLength) bounds.push(fc.constant(''));
    if (s.enum) bounds.push(fc.constantFrom(...s.enum.map((e) => `${String(e)}x`), String(s.enum[0]).toUpperCase()));
    if (s.format) bounds.push(fc.constantFrom('not-a-value', '12345', `${s.format}@`));
    if (s.pattern) bounds.push(fc.constantFrom('%%%', ' leading', 'UPPER'));
  }
  if (s.type === 'integer' || s.type === 'number') {
    if (s.minimum !== undefined) bounds.push(fc.constant(s.minimum - 1));
    if (s.maximum !== undefined) bounds.push(fc.constant(s.maximum + 1));
    if (s.type === 'integer') bounds.push(fc.constant(1.5));
    bounds.push(fc.constantFrom('1', '1e3', ''));
  }
  if (s.type === 'array') {
    if (s.maxItems !== undefined && s.maxItems < 1000) bounds.push(fc.constant(Array.from({ length: s.maxItems + 1 }, () => 'x')));
    bounds.push(fc.array(fc.constantFrom(...HOSTILE_STRINGS.slice(0, 12)), { minLength: 1, maxLength: 3 }));
  }
  return fc.oneof(...wrongType, ...bounds);
}

/** An object that fits the schema but for one property: wrong, missing when required, or unknown. */
export function shapedButWrong(schema: JsonSchema): fc.Arbitrary<unknown> {
  const s = str(schema);
  if (s.type !== 'object' || !s.properties || Object.keys(s.properties).length === 0) return violating(schema);
  const props = s.properties;
  const keys = Object.keys(props);
  return fc.tuple(fitting(schema), fc.constantFrom(...keys), fc.nat(3)).chain(([value, key, how]) => {
    const obj = { ...(value as Record<string, unknown>) };
    if (how === 0 && (s.required ?? []).includes(key)) {
      delete obj[key];
      return fc.constant(obj);
    }
    if (how === 1) return fc.constantFrom(...HOSTILE_STRINGS).map((extra) => ({ ...obj, [`unknown_${extra.length}`]: extra }));
    return violating(props[key]!).map((wrong) => ({ ...obj, [key]: wrong }));
  });
}

export interface BodyCase {
  contentType?: string;
  payload?: string;
}

const json = (value: unknown): BodyCase => ({ contentType: 'application/json', payload: JSON.stringify(value) });

/** Bodies for a route: fitting, shaped-but-wrong, arbitrary JSON, malformed JSON, other media types, prototype payloads, none. */
export function bodies(schema: JsonSchema | undefined): fc.Arbitrary<BodyCase> {
  const options: Array<{ weight: number; arbitrary: fc.Arbitrary<BodyCase> }> = [
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(json) },
    { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_JSON).map((payload) => ({ contentType: 'application/json', payload })) },
    { weight: 1, arbitrary: fc.constantFrom(...POLLUTION).map((payload) => ({ contentType: 'application/json', payload })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'application/octet-stream'),
          fc.constantFrom('a=1&b=2', '<a/>', '--x\r\n\r\n--x--', '{"a":1}'),
        )
        .map(([contentType, payload]) => ({ contentType, payload })),
    },
    { weight: 1, arbitrary: fc.constant({}) },
  ];
  if (schema) {
    options.push({ weight: 3, arbitrary: fitting(schema).map(json) });
    options.push({ weight: 6, arbitrary: shapedButWrong(schema).map(json) });
    // The prototype keys spliced into an otherwise fitting object.
    options.push({
      weight: 1,
      arbitrary: fitting(schema).map((v) => ({
        contentType: 'application/json',
        payload: JSON.stringify(v).replace(/^\{/, '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},').replace(/,\}$/, '}'),
      })),
    });
  }
  return fc.oneof(...options);
}

/** A query string for the route's declared parameters (fitting or wrong values, repeated keys, unknown keys). */
export function queries(params: Array<{ name: string; schema: JsonSchema }>): fc.Arbitrary<string> {
  const pair = (name: string, schema: JsonSchema) =>
    fc.oneof(
      fitting(schema).map((v) => [`${name}=${safeEncode(String(v))}`]),
      violating(schema).map((v) => [`${name}=${safeEncode(typeof v === 'string' ? v : JSON.stringify(v))}`]),
      fc.tuple(fitting(schema), fitting(schema)).map(([a, b]) => [`${name}=${safeEncode(String(a))}`, `${name}=${safeEncode(String(b))}`]),
      fc.constantFrom('%zz', '%', '', '[]').map((raw) => [`${name}=${raw}`, `${name}[]=1`]),
    );
  const parts = params.map((p) => fc.option(pair(p.name, p.schema), { nil: [] as string[], freq: 2 }));
  const extra = fc.option(fc.constantFrom('__proto__[polluted]=yes', 'constructor.prototype.polluted=yes', `x=${'y'.repeat(5000)}`, '&&==&', 'a=%ZZ'), { nil: undefined, freq: 3 });
  return fc.tuple(fc.tuple(...parts), extra).map(([ps, e]) => [...ps.flat(), ...(e ? [e] : [])].join('&'));
}

/** A path parameter: the real row most of the time, else another id, a hostile segment, arbitrary text. */
export function pathParams(valid: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant(safeEncode(valid)) },
    { weight: 1, arbitrary: fc.uuid().map(safeEncode) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
    {
      weight: 1,
      arbitrary: fc
        .string({ maxLength: 60, unit: 'grapheme' })
        .filter((v) => v.length > 0)
        .map(safeEncode),
    },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS.filter((v) => v.length > 0 && v.length < 2000)).map(safeEncode) },
  );
}
