import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
// A loaded machine (several test files booting servers at once) can take more than a minute.
const READY_TIMEOUT_MS = 100_000;
const STOP_TIMEOUT_MS = 10_000;
const OUTPUT_KEPT_CHARS = 20_000;

export interface RunningServer {
  baseUrl: string;
  /** The tail of the server's stdout and stderr, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Boots the built server (`dist/src/main.js`) on a free port with a fresh DATA_DIR: the embedded
 * database, seeded with the demo data, and the development mail outbox. `extraEnv` adds settings
 * a test needs (a channel's signing secret).
 */
export async function startServer(extraEnv: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'cos-browser-'));
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, PORT: String(port), DATA_DIR: dataDir, APP_ENV: 'development' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.SMTP_URL;

  const child = spawn(process.execPath, ['dist/src/main.js'], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_KEPT_CHARS);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const stopped = await Promise.race([exited.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
      if (!stopped) {
        child.kill('SIGKILL');
        await exited;
      }
    }
    await rm(dataDir, { recursive: true, force: true, maxRetries: 3 });
  };

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`The server exited before it was ready (code ${child.exitCode}, signal ${child.signalCode}):\n${output}`);
    }
    const ready = await fetch(`${baseUrl}/ready`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) return { baseUrl, output: () => output, stop };
    await sleep(250);
  }
  await stop();
  throw new Error(`GET /ready did not answer 200 within ${READY_TIMEOUT_MS / 1000} s:\n${output}`);
}
