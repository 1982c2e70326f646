import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/platform/paths.js';

/**
 * docs/spec-coverage.md maps every row of the specification to its code and the tests that prove
 * it. This file keeps that page true: what it cites must exist, and every row must end `done`.
 */

const DOC = 'docs/spec-coverage.md';
const HEADER = ['Spec', 'Rule', 'Code', 'Test', 'Status'];
const SOURCE_FILE = /^(src|web|test)\/[\w./@-]+\.tsx?$/;
const TEST_FILE = /^(src|test)\/[\w./-]+\.spec\.ts$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
const STATUS = /^(done|in progress \((test\/[\w./-]+\.spec\.ts)\)|missing: .+)$/;

interface Row {
  line: number;
  section: string;
  cells: string[];
}

/** A citation: a file and what the row names in it (symbols in code, `it` names in tests). */
interface Citation {
  file: string;
  names: string[];
}

const root = projectRoot();
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** Splits a table line on the pipes that are not escaped (`\|` stays inside its cell). */
function cellsOf(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

function parseDoc(text: string): { rows: Row[]; problems: string[] } {
  const rows: Row[] = [];
  const problems: string[] = [];
  const lines = text.split('\n');
  let section = '';
  let inTable = false;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    const at = i + 1;
    if (line.startsWith('## ')) {
      section = line.slice(3);
      inTable = false;
      return;
    }
    if (!line.startsWith('|')) {
      inTable = false;
      return;
    }
    const cells = cellsOf(line);
    if (!inTable) {
      if (JSON.stringify(cells) !== JSON.stringify(HEADER)) problems.push(`line ${at}: a table must start with | ${HEADER.join(' | ')} |`);
      inTable = true;
      return;
    }
    if (cells.every((c) => /^-+$/.test(c))) return;
    if (cells.length !== HEADER.length) problems.push(`line ${at}: ${cells.length} cells, expected ${HEADER.length}`);
    rows.push({ line: at, section, cells });
  });
  return { rows, problems };
}

/**
 * Reads a Code or Test cell: a file in backticks opens a citation; the backticked symbols (code)
 * or double-quoted names (tests) after it belong to that file.
 */
function citationsOf(cell: string, kind: 'code' | 'test'): { citations: Citation[]; problems: string[] } {
  const citations: Citation[] = [];
  const problems: string[] = [];
  const token = kind === 'code' ? /`([^`]+)`/g : /`([^`]+)`|"([^"]+)"/g;
  for (const m of cell.matchAll(token)) {
    const quoted = m[1];
    if (quoted !== undefined && SOURCE_FILE.test(quoted)) {
      citations.push({ file: quoted, names: [] });
      continue;
    }
    const name = kind === 'code' ? quoted : m[2];
    if (name === undefined) {
      problems.push(`\`${quoted}\` is not a file path`);
      continue;
    }
    const current = citations.at(-1);
    if (!current) {
      problems.push(`${JSON.stringify(name)} comes before any file`);
      continue;
    }
    current.names.push(name);
  }
  return { citations, problems };
}

/** The names of the (not skipped) `it` / `test` cases of a test file, as written in its source. */
function testNamesOf(source: string): Set<string> {
  const names = new Set<string>();
  // A plain it or test call with a literal name, its focused form, and the each form (each([...]) then the name); never a regex's `.test(` call.
  const plain = /(?<![.\w$])(?:it|test)((?:\.(?:only|concurrent|sequential|fails|skip|todo))*)\s*\(\s*(['"`])((?:\\.|(?!\2)[\s\S])*?)\2/g;
  const each = /(?<![.\w$])(?:it|test)((?:\.(?:only|concurrent|sequential|skip))*)\.each\((?:[^()]|\([^()]*\))*\)\s*\(\s*(['"`])((?:\\.|(?!\2)[\s\S])*?)\2/g;
  for (const pattern of [plain, each]) {
    for (const m of source.matchAll(pattern)) {
      if (/\.(skip|todo)\b/.test(m[1]!)) continue;
      names.add(m[3]!.replace(/\\(.)/g, '$1'));
    }
  }
  return names;
}

function symbolFound(source: string, symbol: string): boolean {
  return symbol.split('.').every((part) => new RegExp(`(?<![\\w$])${part.replace(/\$/g, '\\$')}(?![\\w$])`).test(source));
}

const text = read(DOC);
const { rows, problems: tableProblems } = parseDoc(text);
const where = (row: Row) => `${DOC}:${row.line} (${row.cells[0]})`;

describe('docs/spec-coverage.md (the spec audit table)', () => {
  it('is made of tables with the columns Spec, Rule, Code, Test, Status, under a heading per spec section', () => {
    expect(tableProblems).toEqual([]);
    expect(rows.length).toBeGreaterThan(200);
    for (const row of rows) {
      expect(row.section, where(row)).toMatch(/^\d+(\.\d+)*\.? /);
      expect(row.cells[0], where(row)).toMatch(/^\d+(\.\d+)* \S/);
      expect(row.cells[1], where(row)).not.toBe('');
    }
    const keys = rows.map((r) => `${r.section} / ${r.cells[0]}`);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });

  it('gives every row a status: done, in progress (a test file), or missing with what is missing', () => {
    for (const row of rows) expect(row.cells[4], where(row)).toMatch(STATUS);
  });

  it('cites code files that exist, and the functions and classes it names are in them', () => {
    const problems: string[] = [];
    for (const row of rows) {
      const { citations, problems: parse } = citationsOf(row.cells[2]!, 'code');
      problems.push(...parse.map((p) => `${where(row)}: ${p}`));
      if (citations.length === 0) problems.push(`${where(row)}: no code file cited`);
      for (const { file, names } of citations) {
        if (!existsSync(join(root, file))) {
          problems.push(`${where(row)}: ${file} does not exist`);
          continue;
        }
        const source = read(file);
        for (const name of names) {
          if (!IDENTIFIER.test(name)) problems.push(`${where(row)}: \`${name}\` is not a function or class name`);
          else if (!symbolFound(source, name)) problems.push(`${where(row)}: ${name} is not in ${file}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('cites test files that exist, each with an it() of every cited name; a done row cites at least one', () => {
    const problems: string[] = [];
    const cache = new Map<string, Set<string>>();
    for (const row of rows) {
      const cell = row.cells[3]!;
      const { citations, problems: parse } = citationsOf(cell, 'test');
      problems.push(...parse.map((p) => `${where(row)}: ${p}`));
      if (citations.length === 0 && cell !== '—') problems.push(`${where(row)}: cite test files, or write — when there is none`);
      if (row.cells[4] === 'done' && citations.length === 0) problems.push(`${where(row)}: done without a test`);
      for (const { file, names } of citations) {
        if (!TEST_FILE.test(file)) problems.push(`${where(row)}: ${file} is not a test file`);
        if (!existsSync(join(root, file))) {
          problems.push(`${where(row)}: ${file} does not exist`);
          continue;
        }
        if (names.length === 0) problems.push(`${where(row)}: no test named in ${file}`);
        const known = cache.get(file) ?? testNamesOf(read(file));
        cache.set(file, known);
        for (const name of names) if (!known.has(name)) problems.push(`${where(row)}: no it(${JSON.stringify(name)}) in ${file}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('is linked from the documentation list', () => {
    expect(read('README.md').includes('(docs/spec-coverage.md)'), 'README.md links docs/spec-coverage.md').toBe(true);
  });

  // Checked when the branches that add the missing tests are merged: every row must then be done.
  it('no row is left partial', () => {
    const partial = rows.filter((r) => r.cells[4] !== 'done').map((r) => `${where(r)}: ${r.cells[4]}`);
    expect(partial, `${partial.length} rows are not done`).toEqual([]);
  });
});
