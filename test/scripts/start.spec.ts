import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordServerBuild, recordWebBuild, serverBuildDecision, webBuildDecision } from '../../scripts/start.mjs';

/** npm start's decisions (scripts/start.mjs), on a small project of their own: no build runs here. */
describe('npm start: what it rebuilds', () => {
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  /** What a vite build leaves: dist/web, and the record npm start keeps of its inputs. */
  const viteBuild = () => {
    const { hash } = webBuildDecision(root);
    write('dist/web/index.html', `<!doctype html><title>${Math.random()}</title>`);
    recordWebBuild(root, hash);
  };
  const web = () => webBuildDecision(root);

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'cos-start-'));
    write('web/index.html', '<div id="root"></div>');
    write('web/src/main.tsx', 'export const app = 1;\n');
    write('src/contracts/index.ts', "export const ROLES = ['org_admin'] as const;\n");
    write('src/modules/orgs/orgs.service.ts', 'export class OrgsService {}\n');
    write('vite.config.ts', 'export default {};\n');
    write('package-lock.json', '{"lockfileVersion":3}\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('builds the web app when dist/web is missing, then skips it while nothing changed', () => {
    expect(web()).toMatchObject({ build: true, reason: 'dist/web is missing' });
    viteBuild();
    expect(web()).toMatchObject({ build: false });
    expect(web()).toMatchObject({ build: false });
  });

  it('rebuilds it when a web file or a contract changes, and skips it again once built', () => {
    write('web/src/main.tsx', 'export const app = 2;\n');
    expect(web()).toMatchObject({ build: true, reason: 'its inputs changed' });
    viteBuild();
    expect(web().build).toBe(false);

    write('src/contracts/index.ts', "export const ROLES = ['org_admin', 'org_member'] as const;\n");
    expect(web()).toMatchObject({ build: true, reason: 'its inputs changed' });
    viteBuild();
    expect(web().build).toBe(false);

    write('web/src/new-page.tsx', 'export const page = 1;\n');
    expect(web().build).toBe(true);
    viteBuild();
    for (const input of ['vite.config.ts', 'package-lock.json']) {
      write(input, `// changed ${input}\n`);
      expect(web().build, input).toBe(true);
      viteBuild();
    }
  });

  it('ignores what the web app does not read: the server, contract tests, a file touched without a change', () => {
    write('src/modules/orgs/orgs.service.ts', 'export class OrgsService { n = 1; }\n');
    write('src/contracts/roles.spec.ts', '// a contract test the web build does not read\n');
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'web/src/main.tsx'), later, later);
    expect(web().build).toBe(false);
  });

  it('rebuilds when another command rebuilt dist/web since, when the record is gone, or when dist/web is deleted', () => {
    write('dist/web/index.html', '<!doctype html><title>another build</title>');
    expect(web()).toMatchObject({ build: true, reason: 'dist/web was built by another command since' });
    viteBuild();
    rmSync(join(root, 'dist/web.inputs.json'));
    expect(web()).toMatchObject({ build: true, reason: 'no record of the last web build' });
    viteBuild();
    rmSync(join(root, 'dist/web'), { recursive: true });
    expect(web()).toMatchObject({ build: true, reason: 'dist/web is missing' });
  });

  const server = () => serverBuildDecision(root);
  /** What a tsc build leaves: its build info rewritten, and the record npm start keeps of the inputs. */
  const tscBuild = () => {
    const { hash } = server();
    write('dist/tsconfig.build.tsbuildinfo', `{"build":${Math.random()}}`);
    recordServerBuild(root, hash);
  };

  it('builds the server in full without its build info or entry, or after an install; else incrementally (tsc -b)', () => {
    expect(server()).toMatchObject({ full: true, skip: false, reason: 'first build' });
    write('dist/tsconfig.build.tsbuildinfo', '{}');
    expect(server()).toMatchObject({ full: true, skip: false, reason: 'dist/src/main.js is missing' });
    write('dist/src/main.js', '');
    expect(server()).toMatchObject({ full: false, skip: false, reason: 'no record of the last server build' });
    write('node_modules/.package-lock.json', '{}');
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'node_modules/.package-lock.json'), later, later);
    expect(server()).toMatchObject({ full: true, skip: false, reason: 'dependencies installed since the last build' });
    const earlier = new Date(Date.now() - 60_000);
    utimesSync(join(root, 'node_modules/.package-lock.json'), earlier, earlier);
  });

  it('runs no tsc while the server inputs and its build info are those of the last build', () => {
    tscBuild();
    expect(server()).toMatchObject({ full: false, skip: true, reason: 'unchanged' });
    // A spec file, the web app and a file touched without a change are not the server build's inputs.
    write('src/modules/orgs/orgs.service.spec.ts', '// a test\n');
    write('web/src/main.tsx', 'export const app = 3;\n');
    const later = new Date(Date.now() + 120_000);
    utimesSync(join(root, 'src/modules/orgs/orgs.service.ts'), later, later);
    expect(server().skip).toBe(true);

    for (const input of ['src/modules/orgs/orgs.service.ts', 'src/modules/orgs/new.repository.ts', 'tsconfig.build.json', 'package-lock.json']) {
      write(input, `// changed ${input} for the server\n`);
      expect(server(), input).toMatchObject({ full: false, skip: false, reason: 'its inputs changed' });
      tscBuild();
      expect(server().skip, input).toBe(true);
    }
    rmSync(join(root, 'src/modules/orgs/new.repository.ts'));
    expect(server()).toMatchObject({ skip: false, reason: 'its inputs changed' });
    tscBuild();

    // Another command's tsc (its build info rewritten), the record deleted, or the entry deleted: tsc runs.
    write('dist/tsconfig.build.tsbuildinfo', '{"build":"by hand"}');
    expect(server()).toMatchObject({ full: false, skip: false, reason: 'built by another command since' });
    tscBuild();
    rmSync(join(root, 'dist/server.inputs.json'));
    expect(server()).toMatchObject({ skip: false, reason: 'no record of the last server build' });
    tscBuild();
    rmSync(join(root, 'dist/src/main.js'));
    expect(server()).toMatchObject({ full: true, skip: false, reason: 'dist/src/main.js is missing' });
  });
});
