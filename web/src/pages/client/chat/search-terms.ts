const SNIPPET_BEFORE = 40;
const SNIPPET_CHARS = 160;
/** Words of web search syntax that match nothing themselves. */
const OPERATORS = new Set(['or', 'and', 'not']);

/**
 * The words of a search to mark in what it found: the search matches word forms ("printers" finds
 * "printer"), so each word is also marked by its stem.
 */
export function searchTerms(query: string): string[] {
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= 2 && !OPERATORS.has(word));
  const terms = new Set<string>();
  for (const word of words) {
    terms.add(word);
    const stem = word.replace(/(ing|ed|es|s)$/u, '');
    if (stem.length >= 3) terms.add(stem);
  }
  return [...terms];
}

/** The part of a message around its first match, on one line. */
export function snippet(content: string, terms: readonly string[]): string {
  const text = content.replace(/\s+/g, ' ').trim();
  const lower = text.toLowerCase();
  const first = Math.min(...terms.map((term) => lower.indexOf(term)).filter((at) => at >= 0), Number.MAX_SAFE_INTEGER);
  const start = first === Number.MAX_SAFE_INTEGER ? 0 : Math.max(0, first - SNIPPET_BEFORE);
  const end = Math.min(text.length, start + SNIPPET_CHARS);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}
