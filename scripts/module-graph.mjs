// The module graph of docs/architecture.md, generated from the real imports: which module of
// src/modules/ imports which other (through its index.ts or not), and which use platform/.
// `npm run docs:graph` rewrites the block between the markers; test/docs/module-graph.spec.ts
// fails when the committed block differs from what the code says.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const START = '<!-- module-graph:start (npm run docs:graph) -->';
export const END = '<!-- module-graph:end -->';

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** `modules/<name>` or `platform` for a file under src/, else undefined. */
function ownerOf(srcDir, file) {
  const parts = relative(srcDir, file).split(sep);
  if (parts[0] === 'modules' && parts.length > 2) return parts[1];
  if (parts[0] === 'platform') return 'platform';
  return undefined;
}

/**
 * The edges between modules and platform, sorted, each once: `a --> b` when a imports b through
 * b's index.ts (or platform), `a -. past index.ts .-> b` when it reaches into b's files.
 */
export function moduleEdges(root) {
  const srcDir = resolve(root, 'src');
  const modulesDir = join(srcDir, 'modules');
  const modules = readdirSync(modulesDir)
    .filter((m) => statSync(join(modulesDir, m)).isDirectory())
    .sort();
  const edges = new Set();
  for (const [owner, dir] of [...modules.map((m) => [m, join(modulesDir, m)]), ['platform', join(srcDir, 'platform')]]) {
    for (const file of sourceFiles(dir)) {
      for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const specifier = match[1] ?? match[2];
        if (!specifier?.startsWith('.')) continue;
        const path = resolve(dirname(file), specifier);
        const target = ownerOf(srcDir, path);
        if (!target || target === owner) continue;
        const throughIndex = target === 'platform' || path === join(modulesDir, target, 'index.js');
        edges.add(throughIndex ? `${owner} --> ${target}` : `${owner} -. past index.ts .-> ${target}`);
      }
    }
  }
  return { modules, edges: [...edges].sort() };
}

/**
 * The mermaid block of the graph: one line per module and kind of arrow, its targets joined with
 * `&` (`admin --> auth & orgs`), so the page stays short as modules grow.
 */
export function moduleGraph(root) {
  const { modules, edges } = moduleEdges(root);
  const grouped = new Map();
  for (const edge of edges) {
    const [, from, arrow, to] = /^(\S+) (-->|-\. past index\.ts \.->) (\S+)$/.exec(edge);
    const key = `${from} ${arrow}`;
    grouped.set(key, [...(grouped.get(key) ?? []), to]);
  }
  const alone = modules.filter((m) => ![...grouped.keys()].some((key) => key.startsWith(`${m} `)));
  const lines = ['```mermaid', 'graph LR', '  platform[(platform)]', ...alone.map((m) => `  ${m}`), ...[...grouped].map(([key, targets]) => `  ${key} ${targets.join(' & ')}`), '```'];
  return lines.join('\n');
}

/** The document with the block between the markers replaced by the graph of the code. */
export function withGraph(doc, graph) {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/architecture.md has no ${START} ... ${END} markers`);
  return `${doc.slice(0, start + START.length)}\n${graph}\n${doc.slice(end)}`;
}

export const ARCHITECTURE_DOC = 'docs/architecture.md';

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const path = join(root, ARCHITECTURE_DOC);
  const before = readFileSync(path, 'utf8');
  const after = withGraph(before, moduleGraph(root));
  if (after !== before) writeFileSync(path, after);
  process.stdout.write(after === before ? `${ARCHITECTURE_DOC}: the module graph is up to date\n` : `${ARCHITECTURE_DOC}: module graph rewritten\n`);
}
