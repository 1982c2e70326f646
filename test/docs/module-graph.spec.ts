import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARCHITECTURE_DOC, moduleEdges, moduleGraph, withGraph } from '../../scripts/module-graph.mjs';

const root = join(import.meta.dirname, '..', '..');

describe('the module graph of docs/architecture.md', () => {
  it('is the graph of the code as it is (npm run docs:graph rewrites it)', () => {
    const doc = readFileSync(join(root, ARCHITECTURE_DOC), 'utf8');
    expect(withGraph(doc, moduleGraph(root)), 'docs/architecture.md is out of date: run npm run docs:graph').toBe(doc);
  });

  it('sees the imports the code has: platform imports no module, billing imports users through its index', () => {
    const { modules, edges } = moduleEdges(root);
    expect(modules).toEqual(expect.arrayContaining(['billing', 'conversations', 'users']));
    expect(edges.filter((e) => e.startsWith('platform '))).toEqual([]);
    expect(edges).toContain('billing --> users');
  });
});
