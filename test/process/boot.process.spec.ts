import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, spawnNode, spawnProcess, waitReady as waitUntilReady, type ServiceProcess } from '../support/processes.js';
import { listMail, waitForMail } from '../support/mail.js';

const run = (env: Record<string, string | undefined>): ServiceProcess => spawnNode('service', ['dist/src/main.js'], env);
const waitReady = (port: number, proc: ServiceProcess) => waitUntilReady({ ...proc, url: `http://127.0.0.1:${port}` });

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
    expect(proc.output()).toMatch(/APP_ENV=production refuses to boot without ENCRYPTION_KEY/);
  });

  it('takes APP_ENV unset as production: refuses to boot without the keys', async () => {
    const proc = run({ APP_ENV: undefined, DATA_DIR: tmp(), PORT: String(await freePort()) });
    expect((await proc.exit).code).toBe(1);
    expect(proc.output()).toMatch(/APP_ENV=production refuses to boot without ENCRYPTION_KEY, JWT_PRIVATE_KEY, JWT_PUBLIC_KEY/);
  });

  it('npm start builds nothing on a built checkout, says APP_ENV=development itself, and then listens on 127.0.0.1 only', async () => {
    const port = await freePort();
    const proc = spawnProcess('npm start', 'npm', ['start'], { APP_ENV: undefined, HOST: undefined, DATA_DIR: tmp(), PORT: String(port) }, { group: true });
    try {
      await waitReady(port, proc);
      // The test runs after npm run build: nothing to rebuild.
      expect(proc.output()).toContain('[start] server unchanged');
      expect(proc.output()).toContain('[start] web app unchanged, skipping vite build');
      expect(proc.output()).toContain('[start] starting the server (APP_ENV=development)');
      expect(proc.output()).toContain('superadmin@platform.demo.invalid');
      const demo = await fetch(`http://127.0.0.1:${port}/api/auth/demo-accounts`);
      expect(demo.status).toBe(200);
      // Not reachable through this machine's other addresses (0.0.0.0 would answer there).
      const external = Object.values(networkInterfaces())
        .flat()
        .find((a) => a && a.family === 'IPv4' && !a.internal);
      if (external)
        expect(
          await fetch(`http://${external.address}:${port}/health`).then(
            (r) => r.status,
            () => 0,
          ),
        ).toBe(0);
    } finally {
      // npm and the start script; the script hands the server one SIGTERM and exits as it does.
      process.kill(-proc.child.pid!, 'SIGTERM');
      await proc.exit;
    }
    expect(proc.output()).toMatch(/"msg":"shutting down"/);
  });

  it('stops on a bad configuration value naming the variable', async () => {
    const proc = run({ DATA_DIR: tmp(), PORT: 'not-a-port' });
    expect((await proc.exit).code).toBe(1);
    expect(proc.output()).toMatch(/PORT: must be a whole number/);
  });

  it('prints the URL and demo logins, keeps data across a graceful restart, and locks its data dir', async () => {
    const dataDir = tmp();
    const port = await freePort();
    const first = run({ DATA_DIR: dataDir, PORT: String(port), APP_ENV: 'development' });
    await waitReady(port, first);
    expect(first.output()).toContain(`running on http://localhost:${port}`);
    expect(first.output()).toContain('superadmin@platform.demo.invalid');
    expect(first.output()).toContain('demo1234');
    const base = `http://127.0.0.1:${port}`;
    const login = await fetch(`${base}/api/auth/demo-login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ role: 'expert', orgSlug: 'acme' }) });
    expect(login.status).toBe(200);

    const intruder = run({ DATA_DIR: dataDir, PORT: String(await freePort()), APP_ENV: 'development' });
    expect((await intruder.exit).code).toBe(1);
    expect(intruder.output()).toMatch(/in use by process/);

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
      await waitForMail(base, 'expert@acme.demo.invalid', () => true, 'with the sign-in code');
      expect(await listMail(base, 'expert@acme.demo.invalid')).toHaveLength(1);
      expect(second.output()).not.toContain('demo data seeded');
    } finally {
      second.child.kill('SIGTERM');
      await second.exit;
    }
  });
});
