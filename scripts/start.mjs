#!/usr/bin/env node
// npm start: builds what changed, then starts the server (dist/src/main.js).
// npm run build: node scripts/start.mjs --build (builds everything, starts nothing).
//
// - The server: `tsc -b tsconfig.build.json`, incremental (its build info is dist/tsconfig.build.tsbuildinfo):
//   a changed file costs a few seconds, dist/ deleted the full build again. A missing
//   dist/src/main.js, or dependencies installed after the last build, force a full build. When
//   its inputs hash as they did at the last build (dist/server.inputs.json) and the build info is
//   the one recorded then, tsc is not run at all (loading it alone takes about 0.4 s).
// - The web app: `vite build` when its inputs changed (a hash of web/, src/contracts/, the vite
//   config and the lock files, recorded in dist/web.inputs.json), when dist/web is missing, or when
//   dist/web/index.html is not the one the record was made for (another vite build wrote it).
// - Then `node dist/src/main.js` with APP_ENV=development unless APP_ENV is set, the environment
//   otherwise as it is. SIGINT, SIGTERM and SIGHUP reach the server once, as SIGTERM (it stops
//   gracefully); a further signal after a second kills it. The exit code is the server's.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

/** What the web build reads besides node_modules: directories are read whole (spec files aside). */
export const WEB_INPUTS = ['web', 'src/contracts', 'vite.config.ts', 'tsconfig.json', 'package.json', 'package-lock.json', 'node_modules/.package-lock.json'];
/** The record of the last web build, beside dist/web (inside it, it would be served). */
export const WEB_RECORD = 'dist/web.inputs.json';
/** What the server's build reads besides node_modules' own files (tsconfig.build.json: src/ without its spec files). */
export const SERVER_INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'node_modules/.package-lock.json'];
/** The record of the last server build. */
export const SERVER_RECORD = 'dist/server.inputs.json';
export const SERVER_ENTRY = 'dist/src/main.js';
export const SERVER_BUILD_INFO = 'dist/tsconfig.build.tsbuildinfo';

function filesUnder(root, path, out) {
  const full = join(root, path);
  if (!existsSync(full)) return;
  if (!statSync(full).isDirectory()) {
    out.push(path);
    return;
  }
  for (const entry of readdirSync(full, { withFileTypes: true })) {
    const child = path + '/' + entry.name;
    if (entry.isDirectory()) filesUnder(root, child, out);
    else if (entry.isFile() && !entry.name.endsWith('.spec.ts')) out.push(child);
  }
}

/** A hash of the web build's inputs: their paths and contents (an unchanged file touched keeps it). */
export function webInputsHash(root) {
  return inputsHash(root, WEB_INPUTS);
}

/** A hash of the paths and contents of the files of `inputs` (files, or directories read whole but for spec files). */
function inputsHash(root, inputs) {
  const files = [];
  for (const input of inputs) filesUnder(root, input, files);
  files.sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** When and how large a build's output file was written: another command's build changes it. */
function stampOf(path) {
  if (!existsSync(path)) return undefined;
  const stat = statSync(path);
  return `${stat.mtimeMs}:${stat.size}`;
}

const indexStamp = (root) => stampOf(join(root, 'dist', 'web', 'index.html'));

/** Whether the web app needs `vite build`: `{ build, reason, hash }`. */
export function webBuildDecision(root) {
  const hash = webInputsHash(root);
  const index = indexStamp(root);
  if (index === undefined) return { build: true, reason: 'dist/web is missing', hash };
  let record;
  try {
    record = JSON.parse(readFileSync(join(root, WEB_RECORD), 'utf8'));
  } catch {
    return { build: true, reason: 'no record of the last web build', hash };
  }
  if (record.index !== index) return { build: true, reason: 'dist/web was built by another command since', hash };
  if (record.hash !== hash) return { build: true, reason: 'its inputs changed', hash };
  return { build: false, reason: 'unchanged', hash };
}

/** Records that dist/web was built from inputs with this hash. */
export function recordWebBuild(root, hash) {
  const index = indexStamp(root);
  if (index === undefined) return;
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(join(root, WEB_RECORD), JSON.stringify({ hash, index }) + '\n');
}

/**
 * How to build the server: `{ full, skip, reason, hash }`: in full, not at all (`skip`: its inputs
 * and build info are those of the last recorded build), or incrementally (`tsc -b` finds what changed).
 */
export function serverBuildDecision(root) {
  const hash = inputsHash(root, SERVER_INPUTS);
  const info = join(root, SERVER_BUILD_INFO);
  if (!existsSync(info)) return { full: true, skip: false, reason: 'first build', hash };
  if (!existsSync(join(root, SERVER_ENTRY))) return { full: true, skip: false, reason: `${SERVER_ENTRY} is missing`, hash };
  const deps = join(root, 'node_modules', '.package-lock.json');
  if (existsSync(deps) && statSync(deps).mtimeMs > statSync(info).mtimeMs) return { full: true, skip: false, reason: 'dependencies installed since the last build', hash };
  let record;
  try {
    record = JSON.parse(readFileSync(join(root, SERVER_RECORD), 'utf8'));
  } catch {
    return { full: false, skip: false, reason: 'no record of the last server build', hash };
  }
  if (record.info !== stampOf(info)) return { full: false, skip: false, reason: 'built by another command since', hash };
  if (record.hash !== hash) return { full: false, skip: false, reason: 'its inputs changed', hash };
  return { full: false, skip: true, reason: 'unchanged', hash };
}

/** Records that the server was built from inputs with this hash (and which build info that build left). */
export function recordServerBuild(root, hash) {
  const info = stampOf(join(root, SERVER_BUILD_INFO));
  if (info === undefined) return;
  writeFileSync(join(root, SERVER_RECORD), JSON.stringify({ hash, info }) + '\n');
}

const say = (line) => process.stdout.write(`[start] ${line}\n`);
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

function run(root, command, args) {
  const result = spawnSync(process.execPath, [join(root, command), ...args], { cwd: root, stdio: 'inherit' });
  return result.status ?? 1;
}

function buildServer(root, { force }) {
  const decision = serverBuildDecision(root);
  if (!force && decision.skip) {
    say('server unchanged, skipping tsc');
    return 0;
  }
  const full = force || decision.full;
  const info = join(root, SERVER_BUILD_INFO);
  const before = existsSync(info) ? statSync(info).mtimeMs : 0;
  say(full ? `building the server (tsc, ${force ? 'full build' : decision.reason}: about 20 s)…` : 'building the server (tsc, incremental)…');
  const since = performance.now();
  if (full) rmSync(info, { force: true });
  const status = run(root, 'node_modules/typescript/bin/tsc', ['-b', 'tsconfig.build.json']);
  if (status !== 0) return status;
  recordServerBuild(root, decision.hash);
  const changed = !existsSync(info) || statSync(info).mtimeMs !== before;
  say(full || changed ? `server built (${seconds(since)})` : `server unchanged (${seconds(since)})`);
  return 0;
}

function buildWeb(root, { force }) {
  const decision = webBuildDecision(root);
  if (!force && !decision.build) {
    say('web app unchanged, skipping vite build');
    return 0;
  }
  say(`building the web app (vite build, ${force ? 'full build' : decision.reason}: a few seconds)…`);
  const since = performance.now();
  // npm start lists no chunks; npm run build does, as vite build did.
  const status = run(root, 'node_modules/vite/bin/vite.js', force ? ['build'] : ['build', '--logLevel', 'warn']);
  if (status !== 0) return status;
  recordWebBuild(root, decision.hash);
  say(`web app built (${seconds(since)})`);
  return 0;
}

/** Starts the server; resolves with the exit code to leave with (or re-raises its signal). */
function serve(root) {
  const env = { ...process.env, APP_ENV: process.env.APP_ENV || 'development' };
  say(`starting the server (APP_ENV=${env.APP_ENV})…`);
  // Its own process group: a terminal's Ctrl-C (and npm, which forwards it) reach this script only,
  // which hands the server one SIGTERM. Two would stop it without its graceful shutdown.
  const child = spawn(process.execPath, [join(root, SERVER_ENTRY)], { cwd: process.cwd(), env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
  let firstSignalAt = 0;
  const onSignal = () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const now = Date.now();
    if (firstSignalAt === 0) {
      firstSignalAt = now;
      child.kill('SIGTERM');
    } else if (now - firstSignalAt > 1000) {
      // Asked again: do not wait for the graceful stop.
      child.kill('SIGKILL');
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, onSignal);
  // Never leave the server behind: this script ends with it.
  process.on('exit', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

function main() {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const args = process.argv.slice(2);
  const buildOnly = args.includes('--build');
  const unknown = args.filter((a) => a !== '--build');
  if (unknown.length > 0) {
    process.stderr.write(`start: unknown argument ${JSON.stringify(unknown[0])} (usage: node scripts/start.mjs [--build])\n`);
    process.exit(2);
  }
  const since = performance.now();
  const status = buildServer(root, { force: buildOnly }) || buildWeb(root, { force: buildOnly });
  if (status !== 0) {
    say('the build failed');
    process.exit(status);
  }
  if (buildOnly) {
    say(`built (${seconds(since)})`);
    return;
  }
  serve(root);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
