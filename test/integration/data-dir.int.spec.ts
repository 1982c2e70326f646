import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp, type RunningApp } from '../../src/app.factory.js';
import { loadConfig } from '../../src/platform/config/config.js';
import { setLogDestination } from '../../src/platform/observability/logger.js';
import { testEnv } from '../support/env.js';
import { HttpClient } from '../support/http.js';
import { waitForMail } from '../support/mail.js';

/** Every directory and file under `root` whose mode is not 0700 (directories) or 0600 (files). */
function openPaths(root: string): string[] {
  const open: string[] = [];
  const visit = (path: string) => {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    if (mode !== (stat.isDirectory() ? 0o700 : 0o600)) open.push(`${path.slice(root.length) || '/'} ${mode.toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return open;
}

const countFiles = (root: string): number => {
  let n = 0;
  const visit = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else n++;
  };
  visit(root);
  return n;
};

describe('DATA_DIR is private to the service user (0700 / 0600), on a real embedded database on disk', () => {
  const base = mkdtempSync(join(tmpdir(), 'cos-data-dir-'));
  const dataDir = join(base, 'data');
  const lines: string[] = [];
  let running: RunningApp;
  let http: HttpClient;

  beforeAll(async () => {
    // A folder left by an earlier version: world-readable, with a world-readable file in it.
    mkdirSync(join(dataDir, 'notes'), { recursive: true });
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'notes'), 0o755);
    writeFileSync(join(dataDir, 'notes', 'left-over.txt'), 'left over');
    chmodSync(join(dataDir, 'notes', 'left-over.txt'), 0o644);
    process.umask(0o022);
    setLogDestination({ write: (line: string) => void lines.push(line) });
    const config = loadConfig(testEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'info' }));
    // Start from the seeded template unpacked onto disk (PGlite writes it out), or migrate afresh.
    const templates = inject('pgliteTemplates');
    const embedded = templates ? { loadDataDir: new Blob([readFileSync(templates.seeded)]) } : undefined;
    running = await createApp(config, { embedded, seed: !templates });
    await running.app.listen(0, '127.0.0.1');
    const address = running.app.getHttpServer().address();
    http = new HttpClient(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
  });
  afterAll(async () => {
    await running?.close();
    setLogDestination(undefined);
    rmSync(base, { recursive: true, force: true });
  });

  it('repairs an existing folder at start, with one log line, and keeps the database files private', () => {
    expect(running.dbService.handle.kind).toBe('pglite');
    expect(countFiles(join(dataDir, 'pglite'))).toBeGreaterThan(100);
    expect(readdirSync(join(dataDir, 'keys')).sort()).toEqual(['encryption.key', 'jwt-private.pem', 'jwt-public.pem']);
    expect(openPaths(dataDir)).toEqual([]);
    const repaired = lines.map((l) => JSON.parse(l)).filter((l) => /DATA_DIR was open to other users/.test(l.msg));
    expect(repaired).toHaveLength(1);
    expect(repaired[0]).toMatchObject({ level: 40, dataDir, paths: expect.arrayContaining(['.', 'notes', join('notes', 'left-over.txt')]) });
  });

  it('keeps files written later private: a sign-in code in the WAL, new WAL segments, new relations', async () => {
    const res = await http.post('/api/auth/request-otp', { email: 'client@acme.demo.invalid' });
    expect(res.status).toBe(204);
    await waitForMail(http.baseUrl, 'client@acme.demo.invalid', (m) => /sign-in code/.test(m.subject), 'with the sign-in code');
    const db = running.dbService.root;
    await db.execute(sql`create table data_dir_probe (x text)`);
    await db.execute(sql`insert into data_dir_probe select repeat('x', 500) from generate_series(1, 20000)`);
    await db.execute(sql`select pg_switch_wal()`);
    await db.execute(sql`checkpoint`);
    expect(openPaths(dataDir)).toEqual([]);
    await running.close();
    expect(openPaths(dataDir)).toEqual([]);
    // Another local user could not even list it.
    expect(lstatSync(dataDir).mode & 0o077).toBe(0);
  });
});
