/** What PostgreSQL refuses in text and jsonb: a NUL, an unpaired UTF-16 surrogate. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** The text with each NUL dropped and each unpaired surrogate replaced by U+FFFD. */
export function storableText(value: string): string {
  return value.replace(UNSTORABLE_ALL, (c) => (c === '\u0000' ? '' : '\ufffd'));
}

/** The path of the first string (or key) of a parsed value that is not storable; undefined when all are. */
export function unstorablePath(value: unknown, path: string[] = []): string[] | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = isStorableText(key) ? unstorablePath(item, [...path, key]) : [...path, key];
    if (found) return found;
  }
  return undefined;
}
