/**
 * HTTP benchmark of the real server against two bare baselines. See bench/README.md.
 *
 * One run: fresh database, fresh RS256 key pair, the built server (dist/src/main.js) and the two
 * baselines each in a child process, autocannon against each in turn, a table on stdout and
 * bench/results/latest.json. Any non-2xx answer, error or timeout in a measured run exits 1; the
 * ratios against the baselines are informational.
 */
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { decodeJwt } from 'jose';
import { cleanupAll, errorMessage, installSignalHandlers, onCleanup } from './lib/cleanup.js';
import { adminUrlFromEnv, createBenchDatabase, redactUrl } from './lib/database.js';
import { freePort } from './lib/free-port.js';
import { isRecord, request, snippet } from './lib/http.js';
import { generateRs256Pem, type PemKeyPair } from './lib/keys.js';
import { LoadFailure, measure, type LoadSettings, type LoadTarget } from './lib/load.js';
import { spawnNode, waitForHttp, type ChildHandle } from './lib/process.js';
import {
  computeRatios,
  renderReport,
  summarize,
  writeReport,
  type RatioSpec,
  type Report,
} from './lib/report.js';
import { formatNumber } from './lib/table.js';

/** dist/bench/run.js -> the project root. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BASELINES = fileURLToPath(new URL('./baselines/', import.meta.url));
const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'latest.json');

const TARGETS = {
  bare: 'bare fastify GET /',
  health: 'server GET /api/health',
  josePg: 'jose+pg GET /me',
  authMe: 'server GET /api/auth/me',
} as const;

const RATIOS: RatioSpec[] = [
  { name: 'health / bare fastify', numerator: TARGETS.health, denominator: TARGETS.bare, target: 0.8 },
  { name: 'auth/me / jose+pg', numerator: TARGETS.authMe, denominator: TARGETS.josePg, target: 0.7 },
];

/** Pause after each measured run. */
const SETTLE_MS = 1_000;

/** Generous limits, so that the server's throttles and quotas never answer 429 under load. */
const UNLIMITED = '100000000';

/**
 * The environment every child starts from: only what a Node process needs to run, so that a
 * developer's shell settings (HOST, REDIS_URL, SEED_DEMO_DATA, ...) never leak into a contender.
 */
const INHERITED_ENV = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'TZ', 'SYSTEMROOT'];

const verbose = process.env.BENCH_VERBOSE === '1';
const log = (message: string) => console.log(`[bench] ${message}`);

function numberFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
  return value;
}

function readSettings(): Report['settings'] {
  return {
    connections: Math.floor(numberFromEnv('BENCH_CONNECTIONS', 50, 1)),
    pipelining: 1,
    durationS: numberFromEnv('BENCH_DURATION_S', 10, 1),
    warmupS: numberFromEnv('BENCH_WARMUP_S', 2, 0),
    timeoutS: 10,
    rounds: Math.floor(numberFromEnv('BENCH_ROUNDS', 1, 1)),
  };
}

function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of INHERITED_ENV) if (process.env[key] !== undefined) env[key] = process.env[key];
  return env;
}

const isOk = (status: number) => status >= 200 && status < 300;

async function startServer(entry: string, dbUrl: string, dataDir: string, keys: PemKeyPair) {
  const port = await freePort();
  const server = spawnNode({
    name: 'server',
    script: entry,
    cwd: ROOT,
    echo: verbose,
    env: {
      ...baseEnv(),
      PORT: String(port),
      DATABASE_URL: dbUrl,
      DATA_DIR: dataDir,
      JWT_PRIVATE_KEY: keys.privateKeyPem,
      JWT_PUBLIC_KEY: keys.publicKeyPem,
      APP_ENV: 'development',
      THROTTLE_ORG_PER_MINUTE: UNLIMITED,
      THROTTLE_IP_PER_MINUTE: UNLIMITED,
      ORG_MESSAGE_QUOTA_PER_HOUR: UNLIMITED,
      LOG_LEVEL: 'warn',
    },
  });
  const startedAt = Date.now();
  const timeoutMs = numberFromEnv('BENCH_READY_TIMEOUT_S', 60, 1) * 1000;
  // IPv4 first; IPv6 loopback too, in case the server listens on "localhost" or "::" only.
  const baseUrls = [`http://127.0.0.1:${port}`, `http://[::1]:${port}`];
  const base = await waitForHttp(server, { baseUrls, path: '/ready', timeoutMs });
  log(`server ready at ${base} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  return { server, base };
}

/** Starts a baseline and waits until `path` answers 200. The caller stops it. */
async function startBaseline(file: string, env: NodeJS.ProcessEnv, readyPath: string, headers?: Record<string, string>) {
  const port = await freePort();
  const child = spawnNode({
    name: path.basename(file, '.js'),
    script: path.join(BASELINES, file),
    cwd: ROOT,
    echo: verbose,
    env: { ...baseEnv(), ...env, PORT: String(port), HOST: '127.0.0.1' },
  });
  const base = await waitForHttp(child, { baseUrls: [`http://127.0.0.1:${port}`], path: readyPath, headers, timeoutMs: 20_000 });
  return { child, base };
}

/** Demo login as superadmin: the bearer token and its subject (the user id). */
async function demoLogin(serverBase: string): Promise<{ token: string; sub: string }> {
  const answer = await request(`${serverBase}/api/auth/demo-login`, { method: 'POST', body: { role: 'superadmin' } });
  const token = isRecord(answer.json) && typeof answer.json.token === 'string' ? answer.json.token : undefined;
  if (!isOk(answer.status) || !token) {
    throw new Error(
      `POST /api/auth/demo-login {"role":"superadmin"} answered ${answer.status}, expected 2xx with { token }: ${snippet(answer.text)}`,
    );
  }
  let sub: string | undefined;
  try {
    sub = decodeJwt(token).sub;
  } catch (err) {
    throw new Error(`the demo-login token is not a JWT: ${errorMessage(err)}`, { cause: err });
  }
  if (!sub) throw new Error('the demo-login token has no sub claim');
  return { token, sub };
}

async function main(report: Report): Promise<void> {
  const { settings } = report;
  const entry = path.resolve(ROOT, process.env.BENCH_SERVER_ENTRY || path.join('dist', 'src', 'main.js'));
  if (!existsSync(entry)) throw new Error(`server entry ${path.relative(ROOT, entry)} not found: build first (npm run build)`);

  log(
    `node ${process.version}, ${os.cpus().length} cpus; ${settings.connections} connections, pipelining ${settings.pipelining}, ` +
      `${settings.warmupS} s warm-up + ${settings.durationS} s measured per target, ${settings.rounds} round(s)`,
  );

  const keys = await generateRs256Pem();

  const adminUrl = adminUrlFromEnv();
  const db = await createBenchDatabase(adminUrl);
  report.database = db.name;
  onCleanup(`drop database ${db.name}`, async () => {
    await db.drop();
    log(`dropped database ${db.name}`);
  });
  log(`created database ${db.name} on ${redactUrl(adminUrl)}`);

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-data-'));
  onCleanup(
    'remove temp dir',
    () => rm(dataDir, { recursive: true, force: true }),
    () => rmSync(dataDir, { recursive: true, force: true }),
  );

  const { server, base: serverBase } = await startServer(entry, db.url, dataDir, keys);
  const { token, sub } = await demoLogin(serverBase);
  log(`demo-login as superadmin: user ${sub}`);
  const auth = { authorization: `Bearer ${token}` };

  // One request to each server route before loading it: a clear message beats a table of 404s.
  const health = await request(`${serverBase}/api/health`);
  if (!isOk(health.status)) throw new Error(`GET /api/health answered ${health.status}: ${snippet(health.text)}`);
  const me = await request(`${serverBase}/api/auth/me`, { headers: auth });
  if (!isOk(me.status)) throw new Error(`GET /api/auth/me with the demo token answered ${me.status}: ${snippet(me.text)}`);
  if (!isRecord(me.json) || me.json.id !== sub) {
    const warning = `GET /api/auth/me answered ${me.status} but its body has no "id" equal to the token's sub (${sub}): ${snippet(me.text)}`;
    report.warnings.push(warning);
    console.warn(`[bench] warning: ${warning}`);
  }

  const measureOne = async (round: number, target: LoadTarget, owner: ChildHandle) => {
    log(`${settings.rounds > 1 ? `round ${round}: ` : ''}measuring ${target.name} ...`);
    try {
      const m = await measure(target, settings);
      report.measurements.push({ ...m, round });
      log(`  ${formatNumber(m.reqPerSecMean, 1)} req/s, p99 ${formatNumber(m.latencyP99Ms)} ms, ${m.totalRequests} requests`);
    } catch (err) {
      if (err instanceof LoadFailure) report.measurements.push({ ...err.measurement, round });
      const state = owner.isRunning() ? 'still running' : 'NOT running any more';
      throw new Error(`${errorMessage(err)}\n--- ${owner.name} is ${state}; its last output ---\n${owner.tail() || '<no output>'}`, {
        cause: err,
      });
    }
    if (!owner.isRunning()) throw new Error(`${owner.name} exited during the measurement of ${target.name}:\n${owner.tail()}`);
    // Let the requests autocannon abandoned at the end finish before the next step (stop or load).
    await sleep(SETTLE_MS);
  };

  for (let round = 1; round <= settings.rounds; round++) {
    // (a) bare fastify, then the server's health.
    {
      const { child, base } = await startBaseline('bare-fastify.js', {}, '/');
      await measureOne(round, { name: TARGETS.bare, url: `${base}/` }, child);
      await child.stop();
    }
    await measureOne(round, { name: TARGETS.health, url: `${serverBase}/api/health` }, server);

    // (b) jose + pg, then the server's auth/me.
    {
      const env = { DATABASE_URL: db.url, JWT_PUBLIC_KEY: keys.publicKeyPem };
      const { child, base } = await startBaseline('jose-pg.js', env, '/me', auth);
      const row = await request(`${base}/me`, { headers: auth });
      if (!isRecord(row.json) || row.json.id !== sub) {
        throw new Error(`baseline GET /me did not return the user ${sub}: ${row.status} ${snippet(row.text)}`);
      }
      await measureOne(round, { name: TARGETS.josePg, url: `${base}/me`, headers: auth }, child);
      await child.stop();
    }
    await measureOne(round, { name: TARGETS.authMe, url: `${serverBase}/api/auth/me`, headers: auth }, server);
  }

  await server.stop();
}

installSignalHandlers();
let settings: Report['settings'];
try {
  settings = readSettings();
} catch (err) {
  console.error(`[bench] ${errorMessage(err)}`);
  process.exit(2);
}
const report: Report = { settings, database: null, measurements: [], warnings: [], error: undefined };
try {
  await main(report);
} catch (err) {
  report.error = errorMessage(err);
}
await cleanupAll();

const summaries = summarize(report.measurements);
const ratios = computeRatios(RATIOS, summaries);
if (summaries.length > 0) console.log(`\n${renderReport(report, summaries, ratios)}\n`);
try {
  await writeReport(RESULTS_FILE, report, summaries, ratios);
  log(`results written to ${path.relative(ROOT, RESULTS_FILE)}`);
} catch (err) {
  console.error(`[bench] could not write ${path.relative(ROOT, RESULTS_FILE)}: ${errorMessage(err)}`);
}
if (report.error !== undefined) {
  console.error(`[bench] FAILED: ${report.error}`);
  process.exit(1);
}
log('done (the ratios are informational: only non-2xx answers, errors and timeouts fail the bench)');
process.exit(0);
