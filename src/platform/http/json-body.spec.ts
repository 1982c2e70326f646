import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-body.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('nestsDeeperThan', () => {
  it('allows 64 levels and refuses 65, of arrays, objects or both', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(nestsDeeperThan(bytes(nested(64)), 64)).toBe(false);
    expect(nestsDeeperThan(bytes(nested(65)), 64)).toBe(true);
    expect(nestsDeeperThan(bytes('{"a":'.repeat(65) + '1' + '}'.repeat(65)), 64)).toBe(true);
    expect(nestsDeeperThan(bytes('[{"a":'.repeat(32) + '1' + '}]'.repeat(32)), 64)).toBe(false);
    expect(nestsDeeperThan(bytes('[{"a":'.repeat(33) + '1' + '}]'.repeat(33)), 64)).toBe(true);
  });

  it('counts depth, not the number of brackets: wide bodies pass', () => {
    expect(nestsDeeperThan(bytes(JSON.stringify(Array.from({ length: 10_000 }, () => [[{ a: [1] }]]))), 64)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included, and multi-byte text', () => {
    expect(nestsDeeperThan(bytes(JSON.stringify({ text: '['.repeat(1000) + '{'.repeat(1000) })), 64)).toBe(false);
    expect(nestsDeeperThan(bytes(JSON.stringify({ text: `\\"${'['.repeat(100)}"é€😀` })), 64)).toBe(false);
    expect(nestsDeeperThan(bytes(`["\\\\"${nested(65).slice(1)}`), 64)).toBe(true);
  });
});
