import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The module boundaries of .dependency-cruiser.cjs (run by `npm run lint`), checked on a small
// tree of fixture files: each forbidden import is reported under its rule, the allowed ones are not.

const ROOT = resolve(import.meta.dirname, '../..');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
  'src/contracts/shared.ts': `export const shared = 1;`,
  'src/contracts/leaky.ts': `import { clock } from '../platform/clock.js';\nexport const leaky = clock;`,
  'src/platform/clock.ts': `export const clock = 1;`,
  'src/platform/reaches-module.ts': `import { aService } from '../modules/a/index.js';\nexport const p = aService;`,
  'src/modules/a/index.ts': `export { aService } from './a.service.js';`,
  'src/modules/a/a.service.ts': `import { aRows } from './a.tables.js';\nimport { clock } from '../../platform/clock.js';\nexport const aService = aRows + clock;`,
  'src/modules/a/a.tables.ts': `import { bRows } from '../b/b.tables.js';\nexport const aRows = bRows;`,
  'src/modules/b/b.tables.ts': `export const bRows = 1;`,
  'src/modules/b/b.service.ts': `import { aService } from '../a/index.js';\nexport const bService = aService;`,
  'src/modules/b/b.internals.ts': `import { aService } from '../a/a.service.js';\nimport { aRows } from '../a/a.tables.js';\nexport const x = aService + aRows;`,
  'src/modules/b/b-a-cycle.tables.ts': `import { cRows } from '../c/c.tables.js';\nexport const bc = cRows;`,
  'src/modules/b/b-svc-from-tables.tables.ts': `import { aService } from '../a/a.service.js';\nexport const bad = aService;`,
  'src/modules/c/c.tables.ts': `import { bc } from '../b/b-a-cycle.tables.js';\nexport const cRows = 1;\nexport const back = bc;`,
  'web/src/page.ts': `import { shared } from '../../src/contracts/shared.js';\nexport const page = shared;`,
  'web/src/reaches-server.ts': `import { aService } from '../../src/modules/a/index.js';\nimport { clock } from '../../src/platform/clock.js';\nexport const w = aService + clock;`,
};

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

let dir: string;
let violations: Violation[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'boundaries-'));
  for (const [path, text] of Object.entries(FILES)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  // Exit code 1 means "violations found": the JSON on stdout says which.
  const out = await promisify(execFile)(process.execPath, [DEPCRUISE, 'src', 'web/src', '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json'], { cwd: dir }).catch(
    (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }),
  );
  violations = (JSON.parse(out.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const found = (rule: string) =>
  violations
    .filter((v) => v.rule.name === rule)
    .map((v) => `${v.from} -> ${v.to}`)
    .sort();

describe('module boundaries', () => {
  it('platform never imports a module', () => {
    expect(found('platform-imports-module')).toEqual(['src/platform/reaches-module.ts -> src/modules/a/index.ts']);
  });

  it('contracts import nothing from platform or modules', () => {
    expect(found('contracts-import-server')).toEqual(['src/contracts/leaky.ts -> src/platform/clock.ts']);
  });

  it('the web app imports from the server only src/contracts', () => {
    expect(found('web-imports-server')).toEqual(['web/src/reaches-server.ts -> src/modules/a/index.ts', 'web/src/reaches-server.ts -> src/platform/clock.ts']);
  });

  it('a module reaches another only through its index.ts, never its tables or internals', () => {
    expect(found('module-internals')).toEqual(['src/modules/b/b.internals.ts -> src/modules/a/a.service.ts', 'src/modules/b/b.internals.ts -> src/modules/a/a.tables.ts']);
  });

  it('a table file imports of other modules only their table files', () => {
    expect(found('tables-import-internals')).toEqual(['src/modules/b/b-svc-from-tables.tables.ts -> src/modules/a/a.service.ts']);
  });

  it('table files never import each other in a cycle', () => {
    expect(found('tables-cycle').length).toBeGreaterThan(0);
    expect(found('tables-cycle').every((v) => /b-a-cycle\.tables\.ts|c\.tables\.ts/.test(v))).toBe(true);
  });

  it('reports nothing else: the allowed imports pass', () => {
    const known = ['platform-imports-module', 'contracts-import-server', 'web-imports-server', 'module-internals', 'tables-import-internals', 'tables-cycle'];
    expect(violations.filter((v) => !known.includes(v.rule.name))).toEqual([]);
    const fromAllowed = violations.filter((v) => ['src/modules/b/b.service.ts', 'src/modules/a/a.service.ts', 'src/modules/a/a.tables.ts', 'web/src/page.ts'].includes(v.from));
    expect(fromAllowed).toEqual([]);
  });
});
