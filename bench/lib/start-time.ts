import { spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { onCleanup } from './cleanup.js';
import { freePort } from './free-port.js';
import { childPids, readMemory } from './rss.js';
import { formatNumber, renderTable } from './table.js';

/*
 * `npm start` on an unchanged, built checkout, as bench/README.md's "Start time" section measures
 * it: the embedded database (no DATABASE_URL, no REDIS_URL), a DATA_DIR of a previous start, the
 * time from the spawn to the first 200 of GET /api/health. One start on a new DATA_DIR first (the
 * database created, migrated and seeded: shown, not judged), then `runs` starts on it; the median
 * is the figure with the target.
 */

export interface StartTimeResult {
  /** What was run: `npm start` (under `npm run bench`) or `node scripts/start.mjs` (no npm around). */
  command: string;
  /** The first start, on a new DATA_DIR (seconds). */
  firstStartS: number;
  /** Each start on the DATA_DIR of the previous one (seconds), and their median. */
  startsS: number[];
  medianS: number;
  /** The server's VmRSS when it first answered, per timed start (MB). */
  readyRssMb: (number | null)[];
}

export interface StartTimeOptions {
  root: string;
  dataDir: string;
  runs: number;
  /** The environment of the command (PATH, HOME, ...): DATA_DIR and PORT are added. */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  log: (message: string) => void;
}

/** `npm start` through the npm that runs the bench; without one, the script `npm start` runs. */
function command(root: string): { label: string; args: string[] } {
  const npm = process.env.npm_execpath;
  if (npm && /npm-cli\.c?js$/.test(npm)) return { label: 'npm start', args: [npm, 'start'] };
  return { label: 'node scripts/start.mjs', args: [path.join(root, 'scripts', 'start.mjs')] };
}

/** Every process under `pid` (children, their children, ...), from /proc. */
function descendants(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of childPids(queue.shift()!)) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function healthOk(url: string): Promise<boolean> {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await answer.arrayBuffer();
    return answer.status === 200;
  } catch {
    return false;
  }
}

/** One start: seconds to the first 200 of GET /api/health, the server's VmRSS then; stopped afterwards. */
async function startOnce(options: StartTimeOptions, port: number): Promise<{ seconds: number; rssMb: number | null }> {
  const { label, args } = command(options.root);
  const startedAt = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: options.root,
    env: { ...options.env, DATA_DIR: options.dataDir, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 100) output.shift();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let tree: number[] = [];
  const stop = async () => {
    if (child.pid === undefined) return;
    tree = [...new Set([...tree, ...descendants(child.pid)])];
    // npm hands SIGTERM to the script, the script once to the server (its graceful stop).
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(20_000)]);
    for (const pid of [child.pid, ...tree]) if (alive(pid)) process.kill(pid, 'SIGKILL');
  };
  const stopNow = onCleanup(`stop ${label}`, stop);
  try {
    const url = `http://127.0.0.1:${port}/api/health`;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${label} exited before answering:\n${output.join('').slice(-4000)}`);
      if (performance.now() - startedAt > options.timeoutMs) throw new Error(`${label} did not answer GET /api/health with 200 within ${options.timeoutMs / 1000} s`);
      if (await healthOk(url)) break;
      await sleep(25);
    }
    const seconds = (performance.now() - startedAt) / 1000;
    // The server is the deepest node process of the tree (npm -> sh -> script -> server).
    tree = child.pid === undefined ? [] : descendants(child.pid);
    const server = tree.at(-1) ?? child.pid;
    const rss = server === undefined ? null : readMemory(server);
    return { seconds, rssMb: rss ? Math.round(rss.rssKb / 1024) : null };
  } finally {
    await stopNow();
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export async function measureStartTime(options: StartTimeOptions): Promise<StartTimeResult> {
  const { label } = command(options.root);
  const port = await freePort();
  options.log(`start time: ${label} on a new DATA_DIR (not judged), then ${options.runs} times on it ...`);
  const first = await startOnce(options, port);
  options.log(`  first start (new DATA_DIR): ${first.seconds.toFixed(2)} s`);
  const starts: { seconds: number; rssMb: number | null }[] = [];
  for (let i = 0; i < options.runs; i++) {
    const start = await startOnce(options, port);
    starts.push(start);
    options.log(`  start ${i + 1}: ${start.seconds.toFixed(2)} s to the first 200 of GET /api/health (VmRSS ${start.rssMb ?? '-'} MB)`);
  }
  const startsS = starts.map((s) => s.seconds);
  return { command: label, firstStartS: first.seconds, startsS, medianS: median(startsS), readyRssMb: starts.map((s) => s.rssMb) };
}

export function renderStartTime(r: StartTimeResult): string {
  return renderTable(
    [{ title: 'start time (embedded database)' }, { title: 'value' }],
    [
      ['command', `${r.command} (PORT set, no DATABASE_URL or REDIS_URL)`],
      ['first start, new DATA_DIR (s; initdb, migrations, demo seed)', r.firstStartS.toFixed(2)],
      ['starts on the DATA_DIR of a previous start (s)', r.startsS.map((s) => s.toFixed(2)).join(' / ')],
      ['median (s)', r.medianS.toFixed(2)],
      ['server VmRSS when ready (MB)', r.readyRssMb.map((v) => (v === null ? '-' : formatNumber(v))).join(' / ')],
    ],
  );
}
