#!/usr/bin/env node
// npm run start:cluster -- --instances 3
//
// Starts N instances of the built server (dist/src/main.js) on consecutive ports from PORT, all on
// the same PostgreSQL database (DATABASE_URL) and Redis (REDIS_URL). Every line an instance writes
// is prefixed with its number and port. SIGINT or SIGTERM stops every instance gracefully (a
// second signal kills them); if one instance stops on its own, the others are stopped too.
// Node's own options given to this script (`node --max-old-space-size=512 scripts/cluster.mjs`) are
// given to every instance.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'src', 'main.js');
const READY_TIMEOUT_MS = 120_000;

const usage = `usage: npm run start:cluster -- --instances <n> [--no-build]

  --instances, -n   how many instances (default 3), on ports PORT, PORT+1, ... (PORT default 3000)
  --no-build        start dist/src/main.js as it is (default: build first when it is missing or older than src/)

Needs DATABASE_URL (PostgreSQL) and REDIS_URL: instances share the database, the rate limits and
real-time delivery. Every other variable is passed to every instance unchanged.`;

function fail(message, code = 2) {
  process.stderr.write(`start:cluster: ${message}\n`);
  process.exit(code);
}

function parseArgs(argv) {
  const options = { instances: 3, build: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = arg.split('=', 2);
    if (name === '--instances' || name === '-n') {
      const value = inline ?? argv[++i];
      if (!/^\d+$/.test(value ?? '') || Number(value) < 1) fail(`--instances needs a whole number of at least 1, got ${JSON.stringify(value)}\n\n${usage}`);
      options.instances = Number(value);
    } else if (arg === '--no-build') {
      options.build = false;
    } else if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    } else {
      fail(`unknown argument ${JSON.stringify(arg)}\n\n${usage}`);
    }
  }
  return options;
}

/** The newest modification time of the files under a directory (0 when it does not exist). */
function newest(dir) {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, name.name);
    latest = Math.max(latest, name.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function needsBuild() {
  if (!existsSync(entry)) return true;
  const built = statSync(entry).mtimeMs;
  return newest(join(root, 'src')) > built || newest(join(root, 'drizzle')) > built;
}

const options = parseArgs(process.argv.slice(2));
const missing = ['DATABASE_URL', 'REDIS_URL'].filter((k) => !process.env[k]?.trim());
if (missing.length > 0) {
  fail(
    `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set. Several instances need one PostgreSQL database (DATABASE_URL) ` +
      'and one Redis (REDIS_URL): the embedded database belongs to one process, and in-memory limits and real-time delivery stay on one instance.',
  );
}
const basePort = process.env.PORT?.trim() ? Number(process.env.PORT) : 3000;
if (!Number.isInteger(basePort) || basePort < 1 || basePort + options.instances - 1 > 65535)
  fail(`PORT must be a port number with room for ${options.instances} consecutive ports, got ${JSON.stringify(process.env.PORT)}`);

if (options.build && needsBuild()) {
  process.stdout.write('[cluster] building (npm run build)\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const built = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) fail('the build failed', 1);
}
if (!existsSync(entry)) fail(`${entry} is missing: run npm run build`, 1);

const instances = [];
let stopping = false;
let exitCode = 0;

function prefixLines(stream, out, prefix) {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => out.write(`${prefix} ${line}\n`));
}

for (let i = 1; i <= options.instances; i++) {
  const port = basePort + i - 1;
  const prefix = `[${i}:${port}]`;
  const child = spawn(process.execPath, [...process.execArgv, entry], { cwd: process.cwd(), env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  const instance = { n: i, port, prefix, child, exited: false };
  prefixLines(child.stdout, process.stdout, prefix);
  prefixLines(child.stderr, process.stderr, prefix);
  child.on('close', (code, signal) => {
    instance.exited = true;
    process.stdout.write(`[cluster] instance ${i} (port ${port}) exited with ${signal ?? `code ${code}`}\n`);
    if (!stopping) {
      exitCode = 1;
      stop('SIGTERM');
    } else if (code !== 0) {
      exitCode = 1;
    }
    if (instances.every((x) => x.exited)) process.exit(exitCode);
  });
  instances.push(instance);
}

function stop(signal) {
  if (stopping) {
    // A second signal: do not wait for the graceful stop.
    for (const x of instances) if (!x.exited) x.child.kill('SIGKILL');
    return;
  }
  stopping = true;
  process.stdout.write(`[cluster] stopping ${instances.filter((x) => !x.exited).length} instance(s) (${signal})\n`);
  for (const x of instances) if (!x.exited) x.child.kill('SIGTERM');
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));

// One line once every instance answers /ready: scripts and tests wait for it.
const host = process.env.HOST?.trim() && process.env.HOST !== '0.0.0.0' ? process.env.HOST.trim() : '127.0.0.1';
const deadline = Date.now() + READY_TIMEOUT_MS;
const pending = new Set(instances);
while (pending.size > 0 && !stopping) {
  for (const x of [...pending]) {
    const ok = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${x.port}/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) pending.delete(x);
  }
  if (pending.size === 0) break;
  if (Date.now() > deadline) {
    process.stderr.write(`[cluster] not ready after ${READY_TIMEOUT_MS / 1000} s: instance(s) ${[...pending].map((x) => x.n).join(', ')}\n`);
    exitCode = 1;
    stop('SIGTERM');
    break;
  }
  await new Promise((r) => setTimeout(r, 250));
}
if (!stopping) process.stdout.write(`[cluster] ${instances.length} instance(s) ready on ports ${instances.map((x) => x.port).join(', ')}\n`);
