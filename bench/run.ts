/**
 * Benchmark of the real server against bare baselines, plus the socket push latency, the
 * notification list on a large table, a client message answered by the Specialist, and the
 * Expert attention list on a large table. See bench/README.md.
 *
 * One run: first `npm start` timed on the embedded database (a DATA_DIR of its own, median of 3
 * starts); then a fresh database, fresh Redis key prefix, fresh RS256 key pair, the built server
 * (dist/src/main.js, with PostgreSQL and Redis) and the baselines each in a child process,
 * autocannon against each in turn, then the server's VmRSS over rounds of the same load, then 1,000 sockets receiving notifications sent at a steady
 * rate, then `GET /api/notifications` of a 1k-row and a 16k-row user, and after a million other rows, then
 * `POST /api/conversations/:id/messages` over 100 orgs (every reply counted in SQL and on an
 * account manager's socket), then `GET /api/expert-queue` on 100,000 items, then signed chat-a
 * events accepted and processed to a reply sent to a vendor stand-in, and a server with a small
 * inbound queue pushed past its backpressure point; the memory of 5,000 idle sockets; then the
 * HTTP-shaped parts again on 3 instances (npm run start:cluster), and the HTTP and list targets on
 * a server on its embedded database (PGlite). The targets table (before -> now) and one table of
 * every part (req/s, p50, p99, the ratio to the baseline of the same run, the idle and peak RSS of
 * each instance) on stdout and
 * in bench/results/latest.md, with the detailed tables; every count in bench/results/latest.json.
 * Any non-2xx answer, error or timeout in a measured run, any lost or duplicated socket event, any
 * client message without exactly one reply, and any chat-a event lost or processed twice, exits 1;
 * otherwise a missed target exits 3 (BENCH_ENFORCE=0: information). BENCH_PARTS runs some parts only.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { decodeJwt } from 'jose';
import { cleanupAll, errorMessage, installSignalHandlers, onCleanup } from './lib/cleanup.js';
import { adminUrlFromEnv, createBenchDatabase, redactUrl } from './lib/database.js';
import { deleteNotificationsOfType, describeTable, insertOtherUsersNotifications, insertUserNotifications, truncateNotifications, vacuumAnalyzeNotifications } from './lib/notifications-data.js';
import { openBenchRedis, redisUrlFromEnv, uniqueRedisPrefix, type BenchRedis } from './lib/redis.js';
import { measureSocketLatency } from './lib/socket-latency.js';
import { createUsersWithTokens } from './lib/users.js';
import { freePort } from './lib/free-port.js';
import { isRecord, request, snippet } from './lib/http.js';
import { generateRs256Pem, type PemKeyPair } from './lib/keys.js';
import { createBenchOrgs, type BenchOrg } from './lib/conversations-data.js';
import { measureConversations, measureQueue, type ConversationsContext, type MeasureOne } from './lib/conversations-bench.js';
import { measureBackpressure, measureChatAThroughput, measureSteadyStream, type ChannelsContext } from './lib/channels-bench.js';
import { createChatAWorkspaces } from './lib/channels-data.js';
import { startChatAVendor, type ChatAWorkspace } from './lib/chat-a.js';
import { LoadFailure, measure, type LoadTarget, type Measurement } from './lib/load.js';
import { spawnNode, waitForHttp, type ChildHandle } from './lib/process.js';
import { startCluster } from './lib/cluster.js';
import { measureIdleSockets } from './lib/idle-sockets.js';
import { currentRssMb, openFileLimits, startRssSampler, steadyRssKb } from './lib/rss.js';
import { measureStartTime } from './lib/start-time.js';
import { INSPECT_PORT_ARG } from './lib/inspector.js';
import { measureMemoryRounds } from './lib/memory-rounds.js';
import { pgliteUrl } from './lib/pg.js';
import { BEFORE, beforeOf } from './lib/before.js';
import { startCpuSample } from './lib/cpu.js';
import { onInstances, onPglite, renderSummary, summaryRows, writeMarkdown, type SummaryItem, type SummaryNote } from './lib/summary.js';
import {
  checkValue,
  computeRatios,
  missedTarget,
  renderReport,
  summarize,
  writeReport,
  type ConversationResult,
  targetText,
  type RatioResult,
  type RatioSpec,
  type Report,
  type TableSetup,
} from './lib/report.js';
import { formatNumber } from './lib/table.js';

/** dist/bench/run.js -> the project root. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BASELINES = fileURLToPath(new URL('./baselines/', import.meta.url));
const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'latest.json');
const SUMMARY_FILE = path.join(ROOT, 'bench', 'results', 'latest.md');

const TARGETS = {
  bare: 'bare fastify GET /',
  health: 'server GET /api/health',
  josePg: 'jose+pg GET /me',
  authMe: 'server GET /api/auth/me',
  insertSelect: 'jose+pg select+insert POST /',
  createNotification: 'server POST /api/notifications',
  listSmall: 'server GET /api/notifications (1k rows)',
  listBigUser: 'server GET /api/notifications (16k-row user)',
  listLarge: 'server GET /api/notifications (+1M others)',
  messageReply: 'jose+pg message+reply POST',
  sendMessage: 'server POST /api/conversations/:id/messages',
  queueExpertBase: 'jose+pg queue select (expert)',
  queueExpert: 'server GET /api/expert-queue (expert)',
  queueAllBase: 'jose+pg queue select (superadmin)',
  queueAll: 'server GET /api/expert-queue (superadmin)',
  chatABaseline: 'fastify HMAC+insert chat-a POST',
  chatA: 'server POST /api/channels/chat-a/events',
} as const;

/** The issue's targets (bench/README.md "Targets"): a missed one fails the run unless BENCH_ENFORCE=0. */
const RATIOS: RatioSpec[] = [
  { name: 'health / bare fastify', numerator: TARGETS.health, denominator: TARGETS.bare, target: 0.8 },
  { name: 'auth/me / jose+pg', numerator: TARGETS.authMe, denominator: TARGETS.josePg, target: 0.8 },
  { name: 'POST notifications / select+insert', numerator: TARGETS.createNotification, denominator: TARGETS.insertSelect, target: 0.8 },
  { name: 'POST notifications / select+insert', metric: 'p99', comparison: '<=', numerator: TARGETS.createNotification, denominator: TARGETS.insertSelect },
  { name: 'GET notifications 16k-row user / 1k', metric: 'p99', comparison: '<=', numerator: TARGETS.listBigUser, denominator: TARGETS.listSmall, target: 1.5 },
  { name: 'GET notifications +1M others / 1k', metric: 'p99', comparison: '<=', numerator: TARGETS.listLarge, denominator: TARGETS.listSmall, target: 1.5 },
  { name: 'POST messages / message+reply', numerator: TARGETS.sendMessage, denominator: TARGETS.messageReply, target: 0.5 },
  { name: 'POST messages / message+reply', metric: 'p99', comparison: '<=', numerator: TARGETS.sendMessage, denominator: TARGETS.messageReply },
  { name: 'expert-queue (expert) / select', numerator: TARGETS.queueExpert, denominator: TARGETS.queueExpertBase, target: 0.6 },
  { name: 'expert-queue (expert) / select', metric: 'p99', comparison: '<=', numerator: TARGETS.queueExpert, denominator: TARGETS.queueExpertBase },
  { name: 'expert-queue (superadmin) / select', numerator: TARGETS.queueAll, denominator: TARGETS.queueAllBase, target: 0.6 },
  { name: 'expert-queue (superadmin) / select', metric: 'p99', comparison: '<=', numerator: TARGETS.queueAll, denominator: TARGETS.queueAllBase },
  { name: 'chat-a accepted / HMAC+insert', numerator: TARGETS.chatA, denominator: TARGETS.chatABaseline, target: 0.7 },
  { name: 'chat-a accepted / HMAC+insert', metric: 'p99', comparison: '<=', numerator: TARGETS.chatA, denominator: TARGETS.chatABaseline },
];

/** The ratios of the `cluster` part: the instances against one instance of the same run. */
const clusterRatios = (instances: number): RatioSpec[] => [
  { name: `chat-a accepted, ${instances} instances / 1`, numerator: onInstances(TARGETS.chatA, instances), denominator: TARGETS.chatA, target: 1.0 },
];

/** The server targets the `pglite` part measures again on the embedded database, and the baseline each is divided by. */
const PGLITE_ROWS: { server: string; baseline?: string; list?: true }[] = [
  { server: TARGETS.health, baseline: TARGETS.bare },
  { server: TARGETS.authMe, baseline: TARGETS.josePg },
  { server: TARGETS.createNotification, baseline: TARGETS.insertSelect },
  { server: TARGETS.listSmall, list: true },
  { server: TARGETS.listBigUser, baseline: onPglite(TARGETS.listSmall), list: true },
  { server: TARGETS.listLarge, baseline: onPglite(TARGETS.listSmall), list: true },
  { server: TARGETS.sendMessage, baseline: TARGETS.messageReply },
  { server: TARGETS.queueExpert, baseline: TARGETS.queueExpertBase },
  { server: TARGETS.queueAll, baseline: TARGETS.queueAllBase },
];

/** The `pglite` part's ratios: shown beside PostgreSQL's, no targets. */
const PGLITE_RATIOS: RatioSpec[] = [
  { name: 'PGlite: health / bare fastify', numerator: onPglite(TARGETS.health), denominator: TARGETS.bare },
  { name: 'PGlite: auth/me / jose+pg (PostgreSQL)', numerator: onPglite(TARGETS.authMe), denominator: TARGETS.josePg },
  { name: 'PGlite: POST notifications / select+insert (PostgreSQL)', numerator: onPglite(TARGETS.createNotification), denominator: TARGETS.insertSelect },
  { name: 'PGlite: POST messages / message+reply (PostgreSQL)', numerator: onPglite(TARGETS.sendMessage), denominator: TARGETS.messageReply },
  { name: 'PGlite: expert-queue (expert) / select (PostgreSQL)', numerator: onPglite(TARGETS.queueExpert), denominator: TARGETS.queueExpertBase },
  { name: 'PGlite: expert-queue (superadmin) / select (PostgreSQL)', numerator: onPglite(TARGETS.queueAll), denominator: TARGETS.queueAllBase },
  { name: 'PGlite: GET notifications 16k-row user / 1k', metric: 'p99', comparison: '<=', numerator: onPglite(TARGETS.listBigUser), denominator: onPglite(TARGETS.listSmall) },
  { name: 'PGlite: GET notifications + others / 1k', metric: 'p99', comparison: '<=', numerator: onPglite(TARGETS.listLarge), denominator: onPglite(TARGETS.listSmall) },
];

/** The rows of the one table, in order: each baseline, then its server target on one instance and on several. */
function summaryItems(instances: number): SummaryItem[] {
  const perMessage = (r: ConversationResult | null) =>
    r ? `server CPU ${r.cpuMsPerMessage === null ? '-' : r.cpuMsPerMessage.toFixed(1)} ms per message; ${formatNumber(r.counts.replies)} replies stored, ${formatNumber(r.push.received)} pushed` : '';
  const accepted = () => 'events accepted per second';
  /** A baseline, and the server targets compared with it (each on one instance, then on several). */
  const group = (baseline: string, servers: string[], notes: { baseline?: SummaryNote; one?: SummaryNote; several?: SummaryNote } = {}): SummaryItem[] => [
    { target: baseline, note: notes.baseline },
    ...servers.flatMap((server) => [
      { target: server, baseline, note: notes.one },
      { target: onInstances(server, instances), baseline, note: notes.several ?? notes.one },
    ]),
  ];
  /** The list rows: the ratio of p99s (the target's), and the table each was measured on. */
  const table = (name: string) => (r: Report) => {
    const t = r.tableSetups.find((x) => x.target === name);
    return t ? `${formatNumber(t.rows)} rows in the table, ${formatNumber(t.rowsForUser)} the user's` : '';
  };
  const list = (server: string) => ({ target: server, baseline: TARGETS.listSmall, metric: 'p99' as const, note: table(server) });
  return [
    { special: 'start' },
    ...group(TARGETS.bare, [TARGETS.health]),
    ...group(TARGETS.josePg, [TARGETS.authMe]),
    ...group(TARGETS.insertSelect, [TARGETS.createNotification]),
    { special: 'memory' },
    { special: 'socket' },
    { special: 'idle-sockets' },
    { target: TARGETS.listSmall, note: table(TARGETS.listSmall) },
    list(TARGETS.listBigUser),
    list(TARGETS.listLarge),
    { ...list(onInstances(TARGETS.listLarge, instances)), note: undefined },
    ...group(TARGETS.messageReply, [TARGETS.sendMessage], { one: (r) => perMessage(r.conversations), several: (r) => perMessage(r.conversationsCluster) }),
    ...group(TARGETS.queueExpertBase, [TARGETS.queueExpert]),
    ...group(TARGETS.queueAllBase, [TARGETS.queueAll]),
    ...group(TARGETS.chatABaseline, [TARGETS.chatA], { baseline: accepted, one: accepted }),
    { special: 'chat-a processed' },
    { special: 'chat-a processed (cluster)' },
    { special: 'backpressure' },
    { special: 'stream' },
    ...PGLITE_ROWS.map((r) => ({
      target: onPglite(r.server),
      baseline: r.baseline,
      ...(r.list ? { metric: 'p99' as const, note: table(onPglite(r.server)) } : {}),
      ...(r.server === TARGETS.sendMessage ? { note: (x: Report) => perMessage(x.conversationsPglite) } : {}),
    })),
  ];
}

/**
 * The parts of a run, in their order; BENCH_PARTS picks some. `cluster` runs the HTTP-shaped
 * parts among the others picked (http, list, conversations, queue, channels) again on several
 * instances.
 */
const PARTS = ['start', 'http', 'memory', 'sockets', 'idle-sockets', 'list', 'conversations', 'queue', 'channels', 'cluster', 'pglite'] as const;
type Part = (typeof PARTS)[number];

/** Pause after each measured run. */
const SETTLE_MS = 1_000;

/**
 * Generous limits, so that the server's throttles and quotas never answer 429 under load (socket
 * handshakes count against the per-IP throttle too: thousands come from this one address).
 */
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

function partsFromEnv(): Part[] {
  const raw = process.env.BENCH_PARTS;
  if (raw === undefined || raw.trim() === '') return [...PARTS];
  const wanted = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const unknown = wanted.filter((p) => !(PARTS as readonly string[]).includes(p));
  if (unknown.length > 0 || wanted.length === 0) throw new Error(`BENCH_PARTS takes a comma-separated list of ${PARTS.join(', ')}; got "${raw}"`);
  return PARTS.filter((p) => wanted.includes(p));
}

function readSettings(): Report['settings'] {
  const int = (name: string, fallback: number, min: number) => Math.floor(numberFromEnv(name, fallback, min));
  return {
    parts: partsFromEnv(),
    enforce: process.env.BENCH_ENFORCE !== '0',
    start: { runs: int('BENCH_START_RUNS', 3, 1) },
    memory: { rounds: int('BENCH_MEMORY_ROUNDS', 4, 2), roundS: numberFromEnv('BENCH_MEMORY_ROUND_S', 5, 1) },
    pglite: {
      userRows: int('BENCH_PGLITE_LIST_USER_ROWS', 1000, 1),
      bigUserRows: int('BENCH_PGLITE_LIST_BIG_USER_ROWS', 16_000, 1),
      otherRows: int('BENCH_PGLITE_LIST_OTHER_ROWS', 100_000, 0),
      queueItems: int('BENCH_PGLITE_QUEUE_ITEMS', 20_000, 1),
      connections: int('BENCH_PGLITE_CONV_CONNECTIONS', 5, 1),
    },
    connections: int('BENCH_CONNECTIONS', 50, 1),
    pipelining: 1,
    durationS: numberFromEnv('BENCH_DURATION_S', 10, 1),
    warmupS: numberFromEnv('BENCH_WARMUP_S', 2, 0),
    timeoutS: 10,
    rounds: int('BENCH_ROUNDS', 1, 1),
    instances: int('BENCH_INSTANCES', 3, 2),
    idleSockets: int('BENCH_IDLE_SOCKETS', 5000, 1),
    socket: {
      sockets: int('BENCH_SOCKETS', 1000, 1),
      ratePerS: numberFromEnv('BENCH_SOCKET_RATE', 500, 1),
      durationS: numberFromEnv('BENCH_SOCKET_SECONDS', 10, 1),
      warmupS: numberFromEnv('BENCH_SOCKET_WARMUP_S', 1, 0),
      maxInFlight: int('BENCH_SOCKET_MAX_INFLIGHT', 64, 1),
      connectBatch: int('BENCH_SOCKET_CONNECT_BATCH', 50, 1),
      graceS: numberFromEnv('BENCH_SOCKET_GRACE_S', 5, 0),
    },
    list: {
      userRows: int('BENCH_LIST_USER_ROWS', 1000, 1),
      bigUserRows: int('BENCH_LIST_BIG_USER_ROWS', 16_000, 1),
      otherRows: int('BENCH_LIST_OTHER_ROWS', 1_000_000, 0),
      otherUsers: int('BENCH_LIST_OTHER_USERS', 10_000, 1),
    },
    conversations: {
      orgs: int('BENCH_CONV_ORGS', 100, 1),
      connections: int('BENCH_CONV_CONNECTIONS', 20, 1),
      pushGraceS: numberFromEnv('BENCH_CONV_PUSH_GRACE_S', 5, 0),
      queueItems: int('BENCH_QUEUE_ITEMS', 100_000, 1),
      expertGrantEvery: int('BENCH_QUEUE_GRANT_EVERY', 2, 1),
    },
    channels: {
      workspaces: int('BENCH_CHANNEL_WORKSPACES', 10, 1),
      // 1,000: about half a second of the baseline (200 events were 0.07-0.15 s of it, too short to
      // tell a rate from the ramp), processed in 8-16 s per instance set.
      events: int('BENCH_CHANNEL_EVENTS', 1000, 1),
      warmupEvents: int('BENCH_CHANNEL_WARMUP_EVENTS', 20, 0),
      ratePerS: numberFromEnv('BENCH_CHANNEL_RATE', 0, 0),
      connections: int('BENCH_CHANNEL_CONNECTIONS', 20, 1),
      drainTimeoutS: numberFromEnv('BENCH_CHANNEL_DRAIN_TIMEOUT_S', 180, 1),
      backpressure: {
        maxDepth: int('BENCH_BP_MAX_DEPTH', 100, 1),
        retryAfterS: int('BENCH_BP_RETRY_AFTER_S', 1, 1),
        events: int('BENCH_BP_EVENTS', 400, 1),
        ratePerS: numberFromEnv('BENCH_BP_RATE', 200, 1),
        jitterMs: numberFromEnv('BENCH_BP_JITTER_MS', 1000, 0),
      },
      // Half the processing rate of one instance (about 80-90 events/s here), 20 s long.
      stream: {
        events: int('BENCH_STREAM_EVENTS', 800, 1),
        ratePerS: numberFromEnv('BENCH_STREAM_RATE', 40, 1),
      },
    },
  };
}

function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of INHERITED_ENV) if (process.env[key] !== undefined) env[key] = process.env[key];
  return env;
}

const isOk = (status: number) => status >= 200 && status < 300;

/** What every server of the bench runs with: its data dir, the run's keys, no throttles in the way. */
function commonServerEnv(dataDir: string, keys: PemKeyPair): NodeJS.ProcessEnv {
  return {
    ...baseEnv(),
    DATA_DIR: dataDir,
    JWT_PRIVATE_KEY: keys.privateKeyPem,
    JWT_PUBLIC_KEY: keys.publicKeyPem,
    APP_ENV: 'development',
    THROTTLE_ORG_PER_MINUTE: UNLIMITED,
    THROTTLE_IP_PER_MINUTE: UNLIMITED,
    ORG_MESSAGE_QUOTA_PER_HOUR: UNLIMITED,
    LOG_LEVEL: 'warn',
  };
}

/** The environment of a server (one, or every instance of a cluster) on PostgreSQL and Redis. */
function serverEnv(dbUrl: string, dataDir: string, keys: PemKeyPair, redis: Pick<BenchRedis, 'url' | 'prefix'>, extraEnv: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...commonServerEnv(dataDir, keys),
    DATABASE_URL: dbUrl,
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: redis.prefix,
    ...extraEnv,
  };
}

/**
 * Node's own arguments for the servers the bench starts itself: the inspector's port for the memory
 * part's collected heap (lib/inspector.ts; it opens nothing by itself), then BENCH_SERVER_NODE_ARGS (split on
 * spaces), e.g. `--cpu-prof --cpu-prof-dir=<dir>` for a CPU profile of each, written when it
 * stops. The cluster's launcher is given them too, and passes them on to each of its instances
 * (Node refuses --cpu-prof in NODE_OPTIONS).
 */
const serverNodeArgs = () => [INSPECT_PORT_ARG, ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];

const readyTimeoutMs = () => numberFromEnv('BENCH_READY_TIMEOUT_S', 60, 1) * 1000;

async function startServer(entry: string, dbUrl: string, dataDir: string, keys: PemKeyPair, redis: Pick<BenchRedis, 'url' | 'prefix'>, extraEnv: Record<string, string> = {}, name = 'server') {
  return startServerWithEnv(entry, serverEnv(dbUrl, dataDir, keys, redis, extraEnv), name);
}

/** Starts the built server with `env` (PORT added) and waits for its /ready. */
async function startServerWithEnv(entry: string, env: NodeJS.ProcessEnv, name: string) {
  const port = await freePort();
  const server = spawnNode({
    name,
    script: entry,
    nodeArgs: serverNodeArgs(),
    cwd: ROOT,
    echo: verbose,
    env: { ...env, PORT: String(port) },
  });
  const startedAt = Date.now();
  const timeoutMs = readyTimeoutMs();
  // IPv4 first; IPv6 loopback too, in case the server listens on "localhost" or "::" only.
  const baseUrls = [`http://127.0.0.1:${port}`, `http://[::1]:${port}`];
  const base = await waitForHttp(server, { baseUrls, path: '/ready', timeoutMs });
  log(`${name} ready at ${base} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
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

/** Demo login (superadmin unless told): the bearer token and its subject (the user id). */
async function demoLogin(serverBase: string, body: Record<string, string> = { role: 'superadmin' }): Promise<{ token: string; sub: string }> {
  const answer = await request(`${serverBase}/api/auth/demo-login`, { method: 'POST', body });
  const token = isRecord(answer.json) && typeof answer.json.token === 'string' ? answer.json.token : undefined;
  if (!isOk(answer.status) || !token) {
    throw new Error(`POST /api/auth/demo-login ${JSON.stringify(body)} answered ${answer.status}, expected 2xx with { token }: ${snippet(answer.text)}`);
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

  const runs = (part: Part) => settings.parts.includes(part);
  if (runs('start')) {
    const startDir = await mkdtemp(path.join(os.tmpdir(), 'bench-start-'));
    onCleanup(
      'remove the start time temp dir',
      () => rm(startDir, { recursive: true, force: true }),
      () => rmSync(startDir, { recursive: true, force: true }),
    );
    report.startTime = await measureStartTime({ root: ROOT, dataDir: startDir, runs: settings.start.runs, env: baseEnv(), timeoutMs: Math.max(readyTimeoutMs(), 180_000), log });
  }

  const keys = await generateRs256Pem();

  // Redis: reachable, and a key prefix of this run only, whose keys go at the end (after the
  // server has stopped: the cleanup steps run in reverse order).
  const redisUrl = redisUrlFromEnv();
  const redis = await openBenchRedis(redisUrl, uniqueRedisPrefix());
  report.redis = { url: redactUrl(redisUrl), prefix: redis.prefix, keysDeleted: null };
  onCleanup(`delete redis keys ${redis.prefix}*`, async () => {
    const deleted = await redis.deletePrefix();
    if (report.redis) report.redis.keysDeleted = deleted;
    log(`deleted ${deleted} redis keys under ${redis.prefix}`);
  });
  log(`redis at ${redactUrl(redisUrl)}, key prefix ${redis.prefix}`);

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

  // chat-a: the signing secret of this run, and the vendor stand-in the replies go to.
  const chatASecret = randomBytes(24).toString('hex');
  let workspaces: ChatAWorkspace[] = [];
  const vendor = runs('channels') ? await startChatAVendor(() => workspaces) : undefined;
  if (vendor) onCleanup('stop the chat-a vendor stand-in', () => vendor.close());
  const chatAEnv: Record<string, string> = vendor ? { CHAT_A_SIGNING_SECRET: chatASecret, CHAT_A_API_BASE_URL: vendor.url } : {};
  const { server, base: serverBase } = await startServer(entry, db.url, dataDir, keys, redis, chatAEnv);
  const { token, sub } = await demoLogin(serverBase);
  log(`demo-login as superadmin: user ${sub}`);
  const auth = { authorization: `Bearer ${token}` };
  // The sender of notifications (an internal role) and their recipient (a client user).
  const am = await demoLogin(serverBase, { role: 'account_manager' });
  const amAuth = { authorization: `Bearer ${am.token}` };
  const client = await demoLogin(serverBase, { role: 'client', orgSlug: 'acme' });
  const clientAuth = { authorization: `Bearer ${client.token}` };
  log(`demo-login as account_manager (${am.sub}) and as client of acme (${client.sub})`);
  const notificationBody = {
    userId: client.sub,
    type: 'bench.post',
    title: 'Bench notification',
    message: 'A notification created by the benchmark',
    meta: { source: 'bench' },
  };

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
  const created = await request(`${serverBase}/api/notifications`, { method: 'POST', headers: amAuth, body: notificationBody });
  if (created.status !== 201 || !isRecord(created.json) || created.json.userId !== client.sub) {
    throw new Error(`POST /api/notifications as account_manager answered ${created.status}, expected 201 with the notification: ${snippet(created.text)}`);
  }

  const measureOne: MeasureOne = async (round, target, owner, onMeasured) => {
    log(`${settings.rounds > 1 ? `round ${round}: ` : ''}measuring ${target.name} ...`);
    let m: Measurement;
    // The resident size of every process that answers, over the warm-up and the measured run.
    const pids = owner.servingPids();
    // What each holds at idle: read just before the load (the previous step has settled).
    const idleRssMb = currentRssMb(pids);
    const rss = startRssSampler(pids);
    const memory = () => ({ instances: pids.length, idleRssMb, peakRssMb: rss.stop().peakRssMb });
    try {
      m = await measure(target, settings);
      onMeasured?.();
      const measured = { ...m, round, ...memory() };
      report.measurements.push(measured);
      log(
        `  ${formatNumber(m.reqPerSecMean, 1)} req/s, p99 ${formatNumber(m.latencyP99Ms)} ms, ${m.totalRequests} requests; ` +
          `peak RSS ${measured.peakRssMb.map((v) => (v === null ? '-' : `${formatNumber(v)} MB`)).join(' / ')}`,
      );
    } catch (err) {
      if (err instanceof LoadFailure) report.measurements.push({ ...err.measurement, round, ...memory() });
      else rss.stop();
      const state = owner.isRunning() ? 'still running' : 'NOT running any more';
      throw new Error(`${errorMessage(err)}\n--- ${owner.name} is ${state}; its last output ---\n${owner.tail() || '<no output>'}`, {
        cause: err,
      });
    }
    if (!owner.isRunning()) throw new Error(`${owner.name} exited during the measurement of ${target.name}:\n${owner.tail()}`);
    // Let the requests autocannon abandoned at the end finish before the next step (stop or load).
    await sleep(SETTLE_MS);
    return m;
  };

  for (let round = 1; runs('http') && round <= settings.rounds; round++) {
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

    // (c) jose + one SELECT + one INSERT, then the server's POST /api/notifications: same body, same AM token.
    {
      const env = { DATABASE_URL: db.url, JWT_PUBLIC_KEY: keys.publicKeyPem };
      const { child, base } = await startBaseline('fastify-insert-select.js', env, '/ready');
      const row = await request(`${base}/`, { method: 'POST', headers: amAuth, body: notificationBody });
      if (row.status !== 201 || !isRecord(row.json) || row.json.recipient_user_id !== client.sub) {
        throw new Error(`baseline POST / did not insert the notification: ${row.status} ${snippet(row.text)}`);
      }
      await measureOne(round, { name: TARGETS.insertSelect, url: `${base}/`, method: 'POST', headers: amAuth, body: notificationBody }, child);
      await child.stop();
    }
    await measureOne(round, { name: TARGETS.createNotification, url: `${serverBase}/api/notifications`, method: 'POST', headers: amAuth, body: notificationBody }, server);
  }

  if (runs('memory')) {
    const target: LoadTarget = { name: TARGETS.createNotification, url: `${serverBase}/api/notifications`, method: 'POST', headers: amAuth, body: notificationBody };
    report.memoryRounds = await measureMemoryRounds({ target, baseUrl: serverBase, server, settings, rounds: settings.memory.rounds, roundS: settings.memory.roundS, log });
    await sleep(SETTLE_MS);
  }
  // The server's VmRSS after every part that used it (the memory part's record), just before it stops.
  const noteRssAfterRun = async () => {
    if (!report.memoryRounds || !server.isRunning() || report.memoryRounds.rssAfterRunMb !== null) return;
    const kb = await steadyRssKb(server.pid);
    report.memoryRounds.rssAfterRunMb = kb === null ? null : Math.round((kb / 1024) * 10) / 10;
  };

  if (runs('sockets')) await measureSockets(report, db.url, keys, serverBase, am.token, server);
  if (runs('idle-sockets')) {
    await measureIdle(report, db.url, keys, (name) => startServer(entry, db.url, dataDir, keys, { url: redis.url, prefix: `${redis.prefix}idle:` }, {}, name));
  }
  if (runs('list')) {
    // The second listing user, with BENCH_LIST_BIG_USER_ROWS rows in the same table.
    const big = await demoLogin(serverBase, { role: 'org_admin', orgSlug: 'acme' });
    const users = { small: { id: client.sub, auth: clientAuth }, big: { id: big.sub, auth: { authorization: `Bearer ${big.token}` } } };
    const l = settings.list;
    await measureList(
      report,
      db.url,
      l,
      users,
      measureOne,
      { server, base: serverBase },
      (name) => name,
      (fn) => fn(),
    );
  }

  const baselineEnv = { DATABASE_URL: db.url, JWT_PUBLIC_KEY: keys.publicKeyPem };
  let orgs: BenchOrg[] | undefined;
  let expert: { token: string; sub: string } | undefined;
  const queueNames = { expertBaseline: TARGETS.queueExpertBase, expert: TARGETS.queueExpert, allBaseline: TARGETS.queueAllBase, all: TARGETS.queueAll };
  if (runs('conversations') || runs('queue')) {
    const c = settings.conversations;
    const context: ConversationsContext = { report, dbUrl: db.url, serverBase, server, measureOne, startBaseline, log };
    log(`conversations: ${c.orgs} active orgs, each with a primary Specialist, a client and a conversation ...`);
    orgs = await createBenchOrgs(db.url, keys.privateKeyPem, c.orgs, am.sub);
    if (runs('conversations')) {
      report.conversations = await measureConversations(context, orgs, am, baselineEnv, { baseline: TARGETS.messageReply, server: TARGETS.sendMessage });
    }
    if (runs('queue')) {
      expert = await demoLogin(serverBase, { role: 'expert' });
      log(`demo-login as expert (${expert.sub})`);
      await measureQueue(context, expert, { token, sub }, baselineEnv, queueNames);
    }
  }

  let channelsContext: ChannelsContext | undefined;
  if (vendor) {
    const c = settings.channels;
    log(`chat-a: ${c.workspaces} orgs, each bound to a workspace by a chat-a integration ...`);
    workspaces = await createChatAWorkspaces({ dbUrl: db.url, privateKeyPem: keys.privateKeyPem, serverBase, am, count: c.workspaces });
    channelsContext = {
      report,
      dbUrl: db.url,
      serverBase,
      server,
      secret: chatASecret,
      vendor,
      workspaces,
      runTag: randomBytes(3).toString('hex'),
      startBaseline,
      // The same database, data dir (its encryption key opens the integrations' secrets) and
      // keys; Redis keys under a prefix of their own, so the chat-a throttle starts afresh.
      startServer: (env, run) =>
        startServer(
          entry,
          db.url,
          dataDir,
          keys,
          { url: redis.url, prefix: `${redis.prefix}${run === 'stream' ? 'st' : 'bp'}:` },
          { ...chatAEnv, ...env },
          `server (${run === 'stream' ? 'steady stream' : 'backpressure'})`,
        ),
      log,
    };
    report.channels = await measureChatAThroughput(channelsContext, c, { baseline: TARGETS.chatABaseline, server: TARGETS.chatA });
    // The backpressure run needs a server of its own settings on the same database: this one goes first.
    await noteRssAfterRun();
    await server.stop();
    await measureBackpressure(channelsContext, c);
    await measureSteadyStream(channelsContext, c);
  }
  await noteRssAfterRun();
  await server.stop();

  // The HTTP-shaped parts again on several instances, as `npm run start:cluster` runs them: the
  // same database and Redis, one autocannon run per target over all their ports.
  if (runs('cluster')) {
    const n = settings.instances;
    const on = (name: string) => onInstances(name, n);
    log(`cluster: ${n} instances (npm run start:cluster -- --instances ${n}) on the bench database and Redis ...`);
    const { handle: cluster, bases } = await startCluster({
      root: ROOT,
      instances: n,
      // Redis keys under a prefix of their own: limits and the chat-a throttle start afresh.
      env: serverEnv(db.url, dataDir, keys, { url: redis.url, prefix: `${redis.prefix}c${n}:` }, chatAEnv),
      readyTimeoutMs: readyTimeoutMs(),
      echo: verbose,
      log,
      nodeArgs: serverNodeArgs(),
    });
    const spread = (p: string) => bases.map((b) => `${b}${p}`);
    for (const base of bases) {
      const probe = await request(`${base}/api/auth/me`, { headers: auth });
      if (!isOk(probe.status)) throw new Error(`instance ${base}: GET /api/auth/me answered ${probe.status}: ${snippet(probe.text)}`);
    }
    for (let round = 1; runs('http') && round <= settings.rounds; round++) {
      await measureOne(round, { name: on(TARGETS.health), url: spread('/api/health') }, cluster);
      await measureOne(round, { name: on(TARGETS.authMe), url: spread('/api/auth/me'), headers: auth }, cluster);
      await measureOne(round, { name: on(TARGETS.createNotification), url: spread('/api/notifications'), method: 'POST', headers: amAuth, body: notificationBody }, cluster);
    }
    if (runs('list')) {
      // The POSTs just measured added their notifications to the list's user: without them the
      // table is the one the list was measured on with one instance (1k rows + a million others).
      const deleted = await deleteNotificationsOfType(db.url, notificationBody.type);
      await vacuumAnalyzeNotifications(db.url);
      const state = await describeTable(db.url, client.sub);
      log(`  list: ${formatNumber(deleted)} notifications of the POST runs deleted; ${formatNumber(state.rows)} rows, ${formatNumber(state.rowsForUser)} for the user; plan: ${state.plan}`);
      for (const base of bases) {
        const page = await request(`${base}/api/notifications`, { headers: clientAuth });
        if (!isOk(page.status) || !Array.isArray(page.json) || page.json.length !== 50) {
          throw new Error(`instance ${base}: GET /api/notifications answered ${page.status}, expected the user's 50 newest: ${snippet(page.text)}`);
        }
      }
      await measureOne(1, { name: on(TARGETS.listLarge), url: spread('/api/notifications'), headers: clientAuth }, cluster);
    }
    const clusterContext: ConversationsContext = { report, dbUrl: db.url, serverBase: bases[0]!, serverBases: bases, server: cluster, measureOne, startBaseline, log };
    if (orgs && runs('conversations')) {
      report.conversationsCluster = await measureConversations(clusterContext, orgs, am, baselineEnv, { baseline: null, server: on(TARGETS.sendMessage) });
    }
    if (expert) {
      await measureQueue(clusterContext, expert, { token, sub }, baselineEnv, { ...queueNames, expert: on(TARGETS.queueExpert), all: on(TARGETS.queueAll) }, false);
    }
    if (channelsContext) {
      report.channelsCluster = await measureChatAThroughput(
        { ...channelsContext, serverBase: bases[0]!, serverBases: bases, server: cluster, runTag: randomBytes(3).toString('hex') },
        settings.channels,
        { baseline: null, server: on(TARGETS.chatA) },
      );
    }
    await cluster.stop();
  }

  if (runs('pglite')) await measurePglite(report, entry, keys, measureOne);
}

/**
 * The embedded database (the default without DATABASE_URL): the single-instance http and list
 * targets again on a server started without DATABASE_URL and REDIS_URL, on a new DATA_DIR; divided
 * by the PostgreSQL baselines of the run (information, no targets).
 */
async function measurePglite(report: Report, entry: string, keys: PemKeyPair, measureOne: MeasureOne) {
  const p = report.settings.pglite;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-pglite-'));
  onCleanup(
    'remove the PGlite temp dir',
    () => rm(dir, { recursive: true, force: true }),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  const env = commonServerEnv(dir, keys);
  const start = () => startServerWithEnv(entry, env, 'server (PGlite)');
  log('pglite: a server on its embedded database (no DATABASE_URL, no REDIS_URL), a new DATA_DIR ...');
  const live: LiveServer = await start();
  try {
    const superadmin = await demoLogin(live.base);
    const auth = { authorization: `Bearer ${superadmin.token}` };
    const am = await demoLogin(live.base, { role: 'account_manager' });
    const client = await demoLogin(live.base, { role: 'client', orgSlug: 'acme' });
    const big = await demoLogin(live.base, { role: 'org_admin', orgSlug: 'acme' });
    const amAuth = { authorization: `Bearer ${am.token}` };
    const body = { userId: client.sub, type: 'bench.post', title: 'Bench notification', message: 'A notification created by the benchmark', meta: { source: 'bench' } };
    const created = await request(`${live.base}/api/notifications`, { method: 'POST', headers: amAuth, body });
    if (created.status !== 201) throw new Error(`PGlite: POST /api/notifications answered ${created.status}: ${snippet(created.text)}`);
    const runs = (part: Part) => report.settings.parts.includes(part);
    for (let round = 1; runs('http') && round <= report.settings.rounds; round++) {
      await measureOne(round, { name: onPglite(TARGETS.health), url: `${live.base}/api/health` }, live.server);
      await measureOne(round, { name: onPglite(TARGETS.authMe), url: `${live.base}/api/auth/me`, headers: auth }, live.server);
      await measureOne(round, { name: onPglite(TARGETS.createNotification), url: `${live.base}/api/notifications`, method: 'POST', headers: amAuth, body }, live.server);
    }
    const dbUrl = pgliteUrl(path.join(dir, 'pglite'));
    // PGlite takes one user at a time: the server stops for the inserts and reads, and starts again.
    const dataAccess = async (fn: () => Promise<void>) => {
      await live.server.stop(30_000);
      await fn();
      Object.assign(live, await start());
    };
    if (runs('list')) {
      const users = { small: { id: client.sub, auth: { authorization: `Bearer ${client.token}` } }, big: { id: big.sub, auth: { authorization: `Bearer ${big.token}` } } };
      const sizes = { userRows: p.userRows, bigUserRows: p.bigUserRows, otherRows: p.otherRows, otherUsers: report.settings.list.otherUsers };
      await measureList(report, dbUrl, sizes, users, measureOne, live, onPglite, dataAccess);
    }
    if (runs('conversations') || runs('queue')) {
      // The message and attention-list parts on the embedded database: the same orgs (made with
      // the server stopped), the same checks; the attention list on BENCH_PGLITE_QUEUE_ITEMS items.
      // A copy of the report for their settings and setup record (PostgreSQL's stay in the report).
      // Fewer connections than PostgreSQL's 20: one database connection serves them all, and 20
      // messages waiting on it took longer than the load generator's 10 s timeout on a busy machine.
      const c = { ...report.settings.conversations, queueItems: p.queueItems, connections: p.connections };
      const pgReport: Report = { ...report, settings: { ...report.settings, conversations: c }, queue: null };
      const ctx: ConversationsContext = {
        report: pgReport,
        dbUrl,
        get serverBase() {
          return live.base;
        },
        get server() {
          return live.server;
        },
        measureOne,
        startBaseline,
        log,
        dataAccess,
      };
      log(`pglite: ${c.orgs} active orgs, each with a primary Specialist, a client and a conversation ...`);
      let orgs: BenchOrg[] = [];
      await dataAccess(async () => {
        orgs = await createBenchOrgs(dbUrl, keys.privateKeyPem, c.orgs, am.sub);
      });
      if (runs('conversations')) report.conversationsPglite = await measureConversations(ctx, orgs, am, {}, { baseline: null, server: onPglite(TARGETS.sendMessage) });
      if (runs('queue')) {
        const expert = await demoLogin(live.base, { role: 'expert' });
        const names = { expertBaseline: TARGETS.queueExpertBase, expert: onPglite(TARGETS.queueExpert), allBaseline: TARGETS.queueAllBase, all: onPglite(TARGETS.queueAll) };
        await measureQueue(ctx, expert, superadmin, {}, names, true, false);
        report.queuePglite = pgReport.queue;
      }
    }
  } finally {
    await live.server.stop(30_000);
  }
}

/**
 * Memory per idle socket: `BENCH_IDLE_SOCKETS` users with tokens, a server of their own, its
 * VmRSS before and with every socket connected.
 */
async function measureIdle(report: Report, dbUrl: string, keys: PemKeyPair, start: (name: string) => Promise<{ server: ChildHandle; base: string }>) {
  const n = report.settings.idleSockets;
  log(`idle sockets: ${formatNumber(n)} users with tokens, then as many sockets to a server of their own ...`);
  const users = await createUsersWithTokens(dbUrl, keys.privateKeyPem, n, 'bench-idle-');
  const { server, base } = await start('server (idle sockets)');
  try {
    const result = await measureIdleSockets({ baseUrl: base, serverPid: server.pid, users, connectBatch: report.settings.socket.connectBatch, settleS: 3, log });
    report.idleSockets = result;
    log(
      `  VmRSS ${result.rssBeforeMb ?? '-'} MB -> ${result.rssAfterMb ?? '-'} MB with ${result.sockets} sockets: ` +
        `${result.perSocketKb ?? '-'} kB per socket (V8 heap ${result.perSocketHeapKb ?? '-'} kB); ${result.rssAfterCloseMb ?? '-'} MB after they closed`,
    );
    if (result.disconnects > 0) {
      const message = `idle sockets: the server closed ${result.disconnects} idle sockets`;
      report.failures.push(message);
      console.error(`[bench] ${message}`);
    }
  } catch (err) {
    throw new Error(`idle sockets: ${errorMessage(err)}\n--- its server's last output ---\n${server.tail() || '<no output>'}`, { cause: err });
  } finally {
    await server.stop();
  }
}

/** Socket create-to-receive latency: 1,000 users, each with a socket, notified at a steady rate. */
async function measureSockets(report: Report, dbUrl: string, keys: PemKeyPair, serverBase: string, senderToken: string, server: ChildHandle) {
  const s = report.settings.socket;
  log(`socket latency: ${s.sockets} sockets, ${s.ratePerS} notifications/s for ${s.durationS} s (+ ${s.warmupS} s warm-up) ...`);
  const users = await createUsersWithTokens(dbUrl, keys.privateKeyPem, s.sockets, 'bench-socket-');
  const probe = await request(`${serverBase}/api/auth/me`, { headers: { authorization: `Bearer ${users[0]!.token}` } });
  if (!isOk(probe.status)) {
    throw new Error(`a token minted by the bench for a socket user is refused: GET /api/auth/me answered ${probe.status}: ${snippet(probe.text)}`);
  }
  let result;
  const rss = startRssSampler([server.pid]);
  try {
    result = await measureSocketLatency({
      baseUrl: serverBase,
      users,
      senderToken,
      ratePerS: s.ratePerS,
      durationS: s.durationS,
      warmupS: s.warmupS,
      maxInFlight: s.maxInFlight,
      connectBatch: s.connectBatch,
      graceMs: s.graceS * 1000,
      serverPid: server.pid,
      log,
    });
  } catch (err) {
    const state = server.isRunning() ? 'still running' : 'NOT running any more';
    throw new Error(`socket latency: ${errorMessage(err)}\n--- server is ${state}; its last output ---\n${server.tail() || '<no output>'}`, {
      cause: err,
    });
  } finally {
    report.socketPeakRssMb = rss.stop().peakRssMb[0] ?? null;
  }
  report.socket = result;
  const m = result.measured;
  log(
    `  ${m.created}/${m.sent} created, ${m.received} received, ${m.lost} lost, ${m.duplicated} duplicated; ` +
      `p50 ${result.latencyMs.p50.toFixed(1)} ms, p99 ${result.latencyMs.p99.toFixed(1)} ms, max ${result.latencyMs.max.toFixed(1)} ms`,
  );
  const problems: string[] = [];
  const lost = m.lost + result.warmup.lost;
  const duplicated = m.duplicated + result.warmup.duplicated;
  const failedPosts = m.sent - m.created + (result.warmup.sent - result.warmup.created);
  if (lost > 0) problems.push(`${lost} lost events`);
  if (duplicated > 0) problems.push(`${duplicated} duplicated events`);
  if (failedPosts > 0) problems.push(`${failedPosts} POSTs not answered 201 (${JSON.stringify({ ...result.warmup.failedPosts, ...m.failedPosts })})`);
  if (result.misrouted > 0) problems.push(`${result.misrouted} events delivered to another user's socket`);
  if (result.unexpected > 0) problems.push(`${result.unexpected} events of this run matching no POST`);
  if (result.disconnects.length > 0) problems.push(`${result.disconnects.length} sockets disconnected during the run`);
  if (problems.length > 0) {
    const message = `socket latency: ${problems.join(', ')}`;
    report.failures.push(message);
    console.error(`[bench] ${message}`);
  }
  if (result.achievedRatePerS < s.ratePerS * 0.95) {
    const warning = `socket latency: the sender reached only ${result.achievedRatePerS.toFixed(0)} of ${s.ratePerS} notifications/s`;
    report.warnings.push(warning);
    console.warn(`[bench] warning: ${warning}`);
  }
  if (!server.isRunning()) throw new Error(`server exited during the socket measurement:\n${server.tail()}`);
  await sleep(SETTLE_MS);
}

/** A listing user: their id and bearer header. */
interface ListUser {
  id: string;
  auth: Record<string, string>;
}

/** The server the list is measured on; the embedded database's is restarted around each insert, so it changes. */
interface LiveServer {
  server: ChildHandle;
  base: string;
}

/**
 * GET /api/notifications of a user with `userRows` rows and of one with `bigUserRows`, on the same
 * table; then of the first with `otherRows` rows of other users added. `name` names the targets
 * (the `pglite` part marks them); `dataAccess` runs the inserts, VACUUM and EXPLAIN (PostgreSQL: as
 * they are; the embedded database: with its server stopped, started again afterwards).
 */
async function measureList(
  report: Report,
  dbUrl: string,
  l: { userRows: number; bigUserRows: number; otherRows: number; otherUsers: number },
  users: { small: ListUser; big: ListUser },
  measureOne: MeasureOne,
  live: LiveServer,
  name: (target: string) => string,
  dataAccess: (fn: () => Promise<void>) => Promise<void>,
) {
  const seconds = (since: number) => (performance.now() - since) / 1000;
  const describe = async (target: string, user: ListUser, insertSeconds: number, vacuumAnalyzeSeconds: number) => {
    const setup: TableSetup = { target: name(target), insertSeconds, vacuumAnalyzeSeconds, ...(await describeTable(dbUrl, user.id)) };
    report.tableSetups.push(setup);
    log(
      `  app_notifications: ${formatNumber(setup.rows)} rows (${formatNumber(setup.rowsForUser)} for the user, ${setup.totalSize}), ` +
        `inserted in ${insertSeconds.toFixed(1)} s, vacuum analyze and checkpoint ${vacuumAnalyzeSeconds.toFixed(1)} s; plan: ${setup.plan}`,
    );
    return setup;
  };
  /** Inserts, then VACUUM (ANALYZE) and CHECKPOINT, then the table and plan as each of `who` sees it. */
  const setUp = async (insert: () => Promise<void>, who: { target: string; user: ListUser }[]) => {
    const setups: TableSetup[] = [];
    await dataAccess(async () => {
      let t = performance.now();
      await insert();
      const insertSeconds = seconds(t);
      t = performance.now();
      await vacuumAnalyzeNotifications(dbUrl);
      const vacuumAnalyzeSeconds = seconds(t);
      for (const w of who) setups.push(await describe(w.target, w.user, insertSeconds, vacuumAnalyzeSeconds));
    });
    return setups;
  };
  const measureUser = async (target: string, user: ListUser, rowsForUser: number) => {
    const page = await request(`${live.base}/api/notifications`, { headers: user.auth });
    const expected = Math.min(50, rowsForUser);
    if (!isOk(page.status) || !Array.isArray(page.json) || page.json.length !== expected) {
      throw new Error(`GET /api/notifications answered ${page.status}, expected an array of ${expected}: ${snippet(page.text)}`);
    }
    if (!page.json.every((n) => isRecord(n) && n.userId === user.id)) throw new Error('GET /api/notifications returned rows of another user');
    await measureOne(1, { name: name(target), url: `${live.base}/api/notifications`, headers: user.auth }, live.server);
  };

  log(
    `notification list: ${formatNumber(l.userRows)} rows for one user and ${formatNumber(l.bigUserRows)} for another, ` +
      `then + ${formatNumber(l.otherRows)} rows for ${formatNumber(l.otherUsers)} others ...`,
  );
  // Start from an empty table: the POST and socket measurements left rows in it.
  const [small, big] = await setUp(async () => {
    await truncateNotifications(dbUrl);
    await insertUserNotifications(dbUrl, users.small.id, l.userRows);
    await insertUserNotifications(dbUrl, users.big.id, l.bigUserRows);
  }, [
    { target: TARGETS.listSmall, user: users.small },
    { target: TARGETS.listBigUser, user: users.big },
  ]);
  await measureUser(TARGETS.listSmall, users.small, small!.rowsForUser);
  await measureUser(TARGETS.listBigUser, users.big, big!.rowsForUser);
  const [large] = await setUp(() => insertOtherUsersNotifications(dbUrl, l.otherRows, l.otherUsers), [{ target: TARGETS.listLarge, user: users.small }]);
  await measureUser(TARGETS.listLarge, users.small, large!.rowsForUser);
}

/**
 * Node cannot raise its own open-file limit: when the idle sockets need more than the soft limit
 * allows and the hard limit has room, the bench runs again under `ulimit -n` (the servers inherit
 * it) and exits with that run's code.
 */
function ensureOpenFiles(settings: Report['settings']): void {
  if (!settings.parts.includes('idle-sockets')) return;
  const needed = settings.idleSockets + 1024;
  const limits = openFileLimits();
  if (!limits || limits.soft >= needed) return;
  if (process.env.BENCH_NOFILE_RAISED === '1' || limits.hard < needed) {
    console.error(
      `[bench] ${formatNumber(settings.idleSockets)} idle sockets need about ${needed} open files, and ulimit -n is ${limits.soft} (hard ${limits.hard}): ` +
        'raise it (ulimit -n) or lower BENCH_IDLE_SOCKETS',
    );
    process.exit(2);
  }
  const limit = String(Math.min(limits.hard, Math.max(needed, 65_536)));
  console.log(`[bench] raising the open-file limit from ${limits.soft} to ${limit} for the idle sockets`);
  const again = spawnSync('/bin/sh', ['-c', 'ulimit -n "$0" && exec "$@"', limit, process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_NOFILE_RAISED: '1' },
  });
  process.exit(again.status ?? 1);
}

/** The commit the bench runs at, and whether src/ or bench/ differ from it (null without git). */
function gitState(): { commit: string | null; dirty: boolean | null } {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const changes = execFileSync('git', ['status', '--porcelain', '--', 'src', 'bench', ':!bench/results'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { commit, dirty: changes.trim() !== '' };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** Three seconds of the machine with nothing of the bench running: what else uses it. */
async function machineSample() {
  const sample = startCpuSample();
  await sleep(3_000);
  return sample.stop();
}

let settings: Report['settings'];
try {
  settings = readSettings();
} catch (err) {
  console.error(`[bench] ${errorMessage(err)}`);
  process.exit(2);
}
ensureOpenFiles(settings);
installSignalHandlers();
const report: Report = {
  settings,
  database: null,
  measurements: [],
  warnings: [],
  redis: null,
  socket: null,
  socketPeakRssMb: null,
  idleSockets: null,
  tableSetups: [],
  conversations: null,
  queue: null,
  channels: null,
  backpressure: null,
  stream: null,
  conversationsCluster: null,
  channelsCluster: null,
  machine: null,
  startTime: null,
  memoryRounds: null,
  conversationsPglite: null,
  queuePglite: null,
  targetsMissed: [],
  failures: [],
  error: undefined,
};
report.machine = {
  startedAt: new Date().toISOString(),
  finishedAt: null,
  ...gitState(),
  loadAverageStart: os.loadavg(),
  loadAverageEnd: null,
  before: await machineSample(),
  after: null,
  busyPctOverRun: null,
};
const wholeRun = startCpuSample();
try {
  await main(report);
} catch (err) {
  report.error = errorMessage(err);
}
await cleanupAll();
report.machine.busyPctOverRun = wholeRun.stop().machineBusyPct;
report.machine.after = await machineSample();
report.machine.loadAverageEnd = os.loadavg();
report.machine.finishedAt = new Date().toISOString();
if (report.failures.length > 0) report.error = [...report.failures, ...(report.error === undefined ? [] : [report.error])].join('\n');

const summaries = summarize(report.measurements);
// Ratios of parts that did not run (BENCH_PARTS) are left out.
const measured = (name: string) => summaries.some((s) => s.name === name);
const ratios: RatioResult[] = [
  ...computeRatios(
    [...RATIOS, ...clusterRatios(settings.instances), ...PGLITE_RATIOS].filter((r) => measured(r.numerator) || measured(r.denominator)),
    summaries,
  ),
  // Figures with a target of their own.
  ...(report.startTime ? [checkValue({ name: 'npm start ready on a previous DATA_DIR (median)', metric: 's', value: report.startTime.medianS, comparison: '<=', target: 5 })] : []),
  ...(report.memoryRounds ? [checkValue({ name: 'V8 heap after a full GC, last memory round / first', metric: 'heap', value: report.memoryRounds.growth, comparison: '<=', target: 1.1 })] : []),
  ...(report.idleSockets ? [checkValue({ name: 'memory per idle socket', metric: 'kB', value: report.idleSockets.perSocketKb, comparison: '<=', target: 20, enforced: false })] : []),
].map((r) => ({ ...r, before: beforeOf(r.name, r.metric) }));
report.targetsMissed = ratios.filter(missedTarget).map((r) => `${r.name} (${r.metric}) ${r.value === null ? '-' : r.value.toFixed(2)}, target ${targetText(r)}`);
const measuredAnything =
  summaries.length > 0 ||
  report.startTime !== null ||
  report.socket !== null ||
  report.idleSockets !== null ||
  report.tableSetups.length > 0 ||
  report.conversations !== null ||
  report.queue !== null ||
  report.channels !== null ||
  report.backpressure !== null ||
  report.stream !== null;
if (measuredAnything) {
  const rows = summaryRows(summaryItems(settings.instances), summaries, report);
  const details = renderReport(report, summaries, ratios);
  console.log(`\n${renderSummary(rows)}\n\n${details}\n`);
  try {
    await writeMarkdown(SUMMARY_FILE, report, rows, details, ratios, BEFORE.run);
    log(`the table written to ${path.relative(ROOT, SUMMARY_FILE)}`);
  } catch (err) {
    console.error(`[bench] could not write ${path.relative(ROOT, SUMMARY_FILE)}: ${errorMessage(err)}`);
  }
}
try {
  await writeReport(RESULTS_FILE, report, summaries, ratios);
  log(`results written to ${path.relative(ROOT, RESULTS_FILE)}`);
} catch (err) {
  console.error(`[bench] could not write ${path.relative(ROOT, RESULTS_FILE)}: ${errorMessage(err)}`);
}
if (report.error !== undefined) {
  console.error(`[bench] FAILED: ${report.error}`);
  if (report.targetsMissed.length > 0) console.error(`[bench] targets missed: ${report.targetsMissed.join('; ')}`);
  process.exit(1);
}
if (report.targetsMissed.length > 0) {
  const list = report.targetsMissed.map((t) => `\n  ${t}`).join('');
  if (settings.enforce) {
    console.error(`[bench] FAILED: every check passed, but ${report.targetsMissed.length} target(s) missed (BENCH_ENFORCE=0 makes them information):${list}`);
    process.exit(3);
  }
  console.warn(`[bench] ${report.targetsMissed.length} target(s) missed, not failing the run (BENCH_ENFORCE=0):${list}`);
}
log('done: every check passed and every target was met (or BENCH_ENFORCE=0)');
process.exit(0);
