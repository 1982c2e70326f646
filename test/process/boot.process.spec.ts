import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

interface Proc {
  child: ChildProcess;
  out: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(env: Record<string, string | undefined>): Proc {
  const full: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'SMTP_URL', 'ENCRYPTION_KEY', 'JWT_PRIVATE_KEY', 'JWT_PUBLIC_KEY']) if (!(k in env)) delete full[k];
  const child = spawn(process.execPath, ['dist/src/main.js'], { cwd: repoRoot, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, out: () => out, exit };
}

async function waitReady(port: number, proc: Proc): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`exited early:\n${proc.out()}`);
    const ok = await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.status === 200, () => false);
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`not ready:\n${proc.out()}`);
}

describe('the service as a process (npm start)', () => {
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), 'cos-process-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('refuses to boot in production without ENCRYPTION_KEY, with a clear message', async () => {
    const proc = run({ APP_ENV: 'production', DATA_DIR: tmp(), PORT: String(await freePort()) });
    const { code } = await proc.exit;
    expect(code).toBe(1);
    expect(proc.out()).toMatch(/APP_ENV=production refuses to boot without ENCRYPTION_KEY/);
  });

  it('stops on a bad configuration value naming the variable', async () => {
    const proc = run({ DATA_DIR: tmp(), PORT: 'not-a-port' });
    expect((await proc.exit).code).toBe(1);
    expect(proc.out()).toMatch(/PORT: must be a whole number/);
  });

  it('prints the URL and demo logins, keeps data across a graceful restart, and locks its data dir', async () => {
    const dataDir = tmp();
    const port = await freePort();
    const first = run({ DATA_DIR: dataDir, PORT: String(port), APP_ENV: 'development' });
    await waitReady(port, first);
    expect(first.out()).toContain(`running on http://localhost:${port}`);
    expect(first.out()).toContain('superadmin@platform.demo.invalid');
    expect(first.out()).toContain('demo1234');
    const base = `http://127.0.0.1:${port}`;
    const login = await fetch(`${base}/api/auth/demo-login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ role: 'expert', orgSlug: 'acme' }) });
    expect(login.status).toBe(200);

    const intruder = run({ DATA_DIR: dataDir, PORT: String(await freePort()), APP_ENV: 'development' });
    expect((await intruder.exit).code).toBe(1);
    expect(intruder.out()).toMatch(/in use by process/);

    first.child.kill('SIGTERM');
    expect(await first.exit).toEqual({ code: 0, signal: null });

    const second = run({ DATA_DIR: dataDir, PORT: String(port), APP_ENV: 'development' });
    try {
      await waitReady(port, second);
      const me = await fetch(`${base}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'org_admin@acme.demo.invalid', password: 'demo1234' }),
      });
      expect(me.status).toBe(200);
      // The user created by demo-login in the first run is still there: it signs in by code.
      const otp = await fetch(`${base}/api/auth/request-otp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'expert@acme.demo.invalid' }) });
      expect(otp.status).toBe(204);
      const mail = (await (await fetch(`${base}/api/dev/mail?to=expert@acme.demo.invalid`)).json()) as unknown[];
      expect(mail).toHaveLength(1);
      expect(second.out()).not.toContain('demo data seeded');
    } finally {
      second.child.kill('SIGTERM');
      await second.exit;
    }
  });
});
