import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { CHAT_A_EVENTS_PATH, mentionEvents, type ChatAEvent, type ChatAVendor, type ChatAWorkspace, type VendorCounts } from './chat-a.js';
import { channelProblems, countChannelRun, databaseNow, inboundProgress, startDepthSampler, type ChannelCounts, type DepthSample, type InboundProgress } from './channels-data.js';
import { startCpuSample, type CpuUse } from './cpu.js';
import { currentRssMb, startRssSampler } from './rss.js';
import type { Measurement } from './load.js';
import { withClient } from './pg.js';
import type { ChildHandle } from './process.js';
import type { Report } from './report.js';
import { deliverEvents, type DeliveryOptions, type DeliveryResult } from './webhook-sender.js';

/*
 * The chat-a measurements of issue 7: signed events accepted by the webhook and fully processed
 * (the reply sent through the vendor stand-in), against a bare "verify and insert" baseline; then
 * a server with a small inbound queue, pushed past the point where backpressure engages, every
 * refused event retried until it is accepted, and every event checked processed once; last, a
 * steady stream slower than processing to the same small queue, which must never be refused.
 */

export interface ChannelsContext {
  report: Report;
  dbUrl: string;
  serverBase: string;
  /** Every instance, when several serve: the events go round-robin over them. */
  serverBases?: string[];
  server: ChildHandle;
  secret: string;
  vendor: ChatAVendor;
  workspaces: ChatAWorkspace[];
  /** A unique tag of this run, in the event ids. */
  runTag: string;
  startBaseline: (file: string, env: NodeJS.ProcessEnv, readyPath: string) => Promise<{ child: ChildHandle; base: string }>;
  /** Starts another server on the bench database with these variables on top of the usual ones (Redis keys of the run's own). */
  startServer: (env: Record<string, string>, run: 'backpressure' | 'stream') => Promise<{ server: ChildHandle; base: string }>;
  log: (message: string) => void;
}

export interface ChannelSettings {
  /** Workspaces (orgs bound by a chat-a integration) the events go round-robin over. */
  workspaces: number;
  /** Events of the throughput run, and before it, unmeasured (the server processes them too). */
  events: number;
  warmupEvents: number;
  /** First attempts per second; 0: as fast as answered. */
  ratePerS: number;
  /** Requests in flight at most (the connections). */
  connections: number;
  /** How long the queue may take to drain after the last acceptance. */
  drainTimeoutS: number;
  backpressure: {
    /** INBOUND_QUEUE_MAX_DEPTH and BACKPRESSURE_RETRY_AFTER_S of the second server (and of the stream's). */
    maxDepth: number;
    retryAfterS: number;
    events: number;
    ratePerS: number;
    /** The random jitter added to Retry-After, at most. */
    jitterMs: number;
  };
  /** A steady stream slower than the server processes, to a server with the same small queue: none may be refused. */
  stream: {
    events: number;
    ratePerS: number;
  };
}

/** One delivery run as the report keeps it (the keys of the events left out). */
export type DeliverySummary = Omit<DeliveryResult, 'acceptedKeys' | 'startedAtMs'>;

export interface ThroughputResult {
  /** Server instances the events went to (round-robin). */
  instances: number;
  workspaces: number;
  events: number;
  warmupEvents: number;
  /** Null when the baseline was not measured again (a run on several instances). */
  baseline: (DeliverySummary & { rowsStored: number }) | null;
  server: DeliverySummary;
  /** Events done per second: done / (last done - first received), on the database clock. */
  processedPerS: number | null;
  /** How long the bench waited after the last acceptance for every event done and every reply sent. */
  drainSeconds: number;
  counts: ChannelCounts;
  vendor: VendorCounts;
  cpuAccept: CpuUse;
  cpuDrain: CpuUse;
  /** The highest VmRSS of each instance from the first measured event to the end of the drain (MB). */
  peakRssMb: (number | null)[];
}

export interface BackpressureResult {
  maxDepth: number;
  retryAfterS: number;
  events: number;
  ratePerS: number;
  delivery: DeliverySummary;
  /** The highest VmRSS of the server over the run (MB). */
  peakRssMb: (number | null)[];
  /** At the first 503: accepted so far (bench) minus done (database), and the database's open depth. */
  firstRefusal: { atS: number; acceptedBefore: number; doneThen: number | null; depthByBench: number | null; openDepth: number | null } | null;
  /** The deepest open queue the sampler saw, and how many samples it took. */
  maxOpenDepth: number;
  samples: number;
  processedPerS: number | null;
  drainSeconds: number;
  counts: ChannelCounts;
  vendor: VendorCounts;
  cpu: CpuUse;
}

const SAMPLE_MS = 200;
const TIMEOUT_MS = 10_000;

function summary(r: DeliveryResult): DeliverySummary {
  const { acceptedKeys: _keys, startedAtMs: _start, ...rest } = r;
  return rest;
}

/** A delivery run as a row of the main table (accepted per second as its req/s). */
function asMeasurement(name: string, url: string, r: DeliveryResult, connections: number): Measurement {
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  let timeouts = 0;
  for (const [status, n] of Object.entries(r.statusCounts)) {
    if (status.startsWith('error: ')) {
      errors += n;
      if (status.includes('timeout')) timeouts += n;
    } else {
      statusCodes[status] = n;
    }
  }
  const count2xx = Object.entries(statusCodes).reduce((sum, [status, n]) => (status.startsWith('2') ? sum + n : sum), 0);
  return {
    name,
    url,
    method: 'POST',
    connections,
    durationS: r.acceptSpanS,
    sent: r.attempts,
    totalRequests: r.attempts,
    count2xx,
    non2xx: r.attempts - count2xx - errors,
    errors,
    timeouts,
    mismatches: r.badAcceptBodies,
    resets: 0,
    statusCodes,
    reqPerSecMean: r.acceptedPerS,
    reqPerSecStddev: 0,
    latencyMeanMs: r.latencyMs.mean,
    latencyP50Ms: r.latencyMs.p50,
    latencyP99Ms: r.latencyMs.p99,
    latencyMaxMs: r.latencyMs.max,
    warmup: null,
  };
}

/** Waits until the events are all out of the queue and their replies sent; the last progress and the seconds waited. */
async function drain(dbUrl: string, keys: string[], expectStored: number, timeoutS: number, log: (m: string) => void): Promise<{ progress: InboundProgress; seconds: number }> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    let progress = await inboundProgress(client, keys);
    let lastLog = started;
    while (!(progress.stored >= expectStored && progress.open === 0 && progress.unsent === 0)) {
      if (performance.now() - started > timeoutS * 1000) break;
      if (performance.now() - lastLog > 10_000) {
        log(`  ... ${progress.done} of ${progress.stored} events done, ${progress.open} open, ${progress.sent} replies sent, ${progress.unsent} unsent`);
        lastLog = performance.now();
      }
      await sleep(250);
      progress = await inboundProgress(client, keys);
    }
    return { progress, seconds: (performance.now() - started) / 1000 };
  } finally {
    await client.end().catch(() => undefined);
  }
}

function fail(report: Report, log: (m: string) => void, label: string, problems: string[]): void {
  if (problems.length === 0) return;
  const message = `${label}: ${problems.join(', ')}`;
  report.failures.push(message);
  console.error(`[bench] ${message}`);
  log(`  ${message}`);
}

function vendorProblems(v: VendorCounts, replies: number): string[] {
  const problems: string[] = [];
  if (v.distinctReplies !== replies) problems.push(`the vendor received ${v.distinctReplies} distinct replies for ${replies} stored`);
  if (v.repeatedReplies > 0) problems.push(`${v.repeatedReplies} replies sent to the vendor more than once`);
  if (v.withoutKey > 0) problems.push(`${v.withoutKey} replies sent without an idempotency key`);
  if (v.misrouted > 0) problems.push(`${v.misrouted} replies sent with another workspace's bot token or to an unknown channel`);
  return problems;
}

const processedPerS = (c: ChannelCounts) => ((c.statuses.done ?? 0) > 0 && c.lastDoneS ? (c.statuses.done ?? 0) / c.lastDoneS : null);

/**
 * Part 1: the same signed events to the baseline, then to the server (as fast as they are
 * answered, `connections` in flight, unless a rate is set), then the wait until every event is
 * done and every reply sent, and the checks in SQL and at the vendor.
 */
export async function measureChatAThroughput(ctx: ChannelsContext, settings: ChannelSettings, names: { baseline: string | null; server: string }): Promise<ThroughputResult> {
  const { report, log } = ctx;
  const events = mentionEvents(ctx.workspaces, settings.events, `${ctx.runTag}t`);
  const warmup = mentionEvents(ctx.workspaces, settings.warmupEvents, `${ctx.runTag}w`);
  // The warm-up's events are checked with the others: every event the server accepted must be processed.
  const keys = [...warmup, ...events].map((e) => e.key);
  const deliver = (url: URL | URL[], list: ChatAEvent[]) =>
    deliverEvents({
      url,
      secret: ctx.secret,
      events: list,
      ratePerS: settings.ratePerS,
      maxInFlight: settings.connections,
      retry: false,
      jitterMs: 0,
      timeoutMs: TIMEOUT_MS,
      giveUpAfterMs: 0,
    });

  let baseline: ThroughputResult['baseline'] = null;
  if (names.baseline !== null) {
    const env = { DATABASE_URL: ctx.dbUrl, CHAT_A_SIGNING_SECRET: ctx.secret };
    const { child, base } = await ctx.startBaseline('fastify-chat-a-events.js', env, '/ready');
    const url = new URL('/chat-a/events', base);
    log(`measuring ${names.baseline}: ${warmup.length} + ${events.length} events ...`);
    const baseIdleRssMb = currentRssMb([child.pid]);
    const baseRss = startRssSampler([child.pid]);
    const w = await deliver(url, warmup);
    const r = await deliver(url, events);
    const basePeakRssMb = baseRss.stop().peakRssMb;
    await child.stop();
    const rowsStored = await withClient(
      ctx.dbUrl,
      async (c) => (await c.query<{ n: number }>('select count(*)::int as n from bench_chat_a_events where event_key = any($1::text[])', [keys])).rows[0]!.n,
    );
    baseline = { ...summary(r), rowsStored };
    report.measurements.push({ ...asMeasurement(names.baseline, url.toString(), r, settings.connections), round: 1, idleRssMb: baseIdleRssMb, peakRssMb: basePeakRssMb });
    log(`  ${r.accepted} accepted in ${r.acceptSpanS.toFixed(2)} s (${r.acceptedPerS.toFixed(0)}/s), p99 ${r.latencyMs.p99.toFixed(1)} ms; ${rowsStored} rows stored`);
    const problems: string[] = [];
    if (r.accepted !== events.length) problems.push(`${events.length - r.accepted} events not accepted (${JSON.stringify(r.statusCounts)}; ${r.samples.join(' | ')})`);
    if (rowsStored !== r.accepted + w.accepted) problems.push(`${rowsStored} rows stored for ${r.accepted + w.accepted} accepted`);
    fail(report, log, 'chat-a baseline', problems);
  }

  ctx.vendor.reset();
  const urls = (ctx.serverBases ?? [ctx.serverBase]).map((base) => new URL(CHAT_A_EVENTS_PATH, base));
  const pids = ctx.server.servingPids();
  log(`measuring ${names.server}: ${warmup.length} + ${events.length} events over ${ctx.workspaces.length} workspaces, then until every reply is sent ...`);
  const idleRssMb = currentRssMb(pids);
  const w = await deliver(urls, warmup);
  // Warm means each instance has processed events already (its first turn loads the offline
  // model's tokenizer, about 0.2 s of CPU): the burst must not share the cores with that.
  await drain(
    ctx.dbUrl,
    warmup.map((e) => e.key),
    w.accepted,
    settings.drainTimeoutS,
    log,
  );
  const cpuSample = startCpuSample(pids);
  const rss = startRssSampler(pids);
  const r = await deliver(urls, events);
  const cpuAccept = cpuSample.stop();
  const measurement = asMeasurement(names.server, urls.join(' '), r, settings.connections);
  log(`  ${r.accepted} accepted in ${r.acceptSpanS.toFixed(2)} s (${r.acceptedPerS.toFixed(0)}/s), p99 ${r.latencyMs.p99.toFixed(1)} ms; ${JSON.stringify(r.statusCounts)}`);

  const drainCpu = startCpuSample(pids);
  const drained = await drain(ctx.dbUrl, keys, r.accepted + w.accepted, settings.drainTimeoutS, log);
  const cpuDrain = drainCpu.stop();
  const { peakRssMb } = rss.stop();
  report.measurements.push({ ...measurement, round: 1, instances: pids.length, idleRssMb, peakRssMb });
  await sleep(500); // a late second send of a reply would show at the vendor
  const counts = await countChannelRun(ctx.dbUrl, keys);
  const vendor = ctx.vendor.counts();
  const result: ThroughputResult = {
    instances: urls.length,
    workspaces: ctx.workspaces.length,
    events: events.length,
    warmupEvents: warmup.length,
    baseline,
    server: summary(r),
    processedPerS: processedPerS(counts),
    drainSeconds: drained.seconds,
    counts,
    vendor,
    cpuAccept,
    cpuDrain,
    peakRssMb,
  };
  log(
    `  processed ${counts.statuses.done ?? 0} in ${counts.lastDoneS?.toFixed(1) ?? '-'} s (${result.processedPerS?.toFixed(1) ?? '-'}/s); ` +
      `last reply in the outbox at ${counts.lastOutboxS?.toFixed(1) ?? '-'} s, sent at ${counts.lastSentS?.toFixed(1) ?? '-'} s; vendor ${vendor.distinctReplies} replies`,
  );
  const problems: string[] = [];
  if (w.accepted !== warmup.length) problems.push(`${warmup.length - w.accepted} warm-up events not accepted (${JSON.stringify(w.statusCounts)}; ${w.samples.join(' | ')})`);
  if (r.accepted !== events.length) problems.push(`${events.length - r.accepted} events not accepted (${JSON.stringify(r.statusCounts)}; ${r.samples.join(' | ')})`);
  if (drained.progress.open > 0 || drained.progress.unsent > 0) {
    problems.push(`not drained within ${settings.drainTimeoutS} s: ${drained.progress.open} events open, ${drained.progress.unsent} replies unsent`);
  }
  problems.push(...channelProblems(counts, r.accepted + w.accepted, r.attempts + w.attempts), ...vendorProblems(vendor, counts.replies));
  fail(report, log, `chat-a throughput${urls.length > 1 ? ` on ${urls.length} instances` : ''}`, problems);
  return result;
}

/**
 * Part 2: the server restarted on the same database with a small INBOUND_QUEUE_MAX_DEPTH and a
 * short BACKPRESSURE_RETRY_AFTER_S; events pushed faster than they are processed, every 503
 * checked (Retry-After, the body of spec 7.1) and retried after Retry-After plus jitter, until
 * every event is accepted; then every event checked processed once.
 */
export async function measureBackpressure(ctx: ChannelsContext, settings: ChannelSettings): Promise<void> {
  const bp = settings.backpressure;
  ctx.report.backpressure = await measureLimitedQueue(ctx, settings, { kind: 'backpressure', events: bp.events, ratePerS: bp.ratePerS });
}

/**
 * Part 3: a server with the same small queue, sent a steady stream slower than it processes (each
 * call a few ms, the next one 25 ms after the last began: seldom a quiet moment of 20 ms). The
 * webhooks come first, but such a stream must be processed as it comes: no 503, the queue never
 * full, every event processed once.
 */
export async function measureSteadyStream(ctx: ChannelsContext, settings: ChannelSettings): Promise<void> {
  const st = settings.stream;
  ctx.report.stream = await measureLimitedQueue(ctx, settings, { kind: 'stream', events: st.events, ratePerS: st.ratePerS });
}

/** The two runs on a small queue: their name in the log and failures, and the tag of their event ids. */
const LIMITED_QUEUE_RUNS = { backpressure: { label: 'backpressure', tag: 'b' }, stream: { label: 'steady stream', tag: 's' } } as const;

/** Events at a fixed rate to a server with a small queue, every refusal retried: the backpressure run, or a stream that must never be refused. */
async function measureLimitedQueue(ctx: ChannelsContext, settings: ChannelSettings, run: { kind: 'backpressure' | 'stream'; events: number; ratePerS: number }): Promise<BackpressureResult> {
  const { log } = ctx;
  const bp = settings.backpressure;
  const { label, tag } = LIMITED_QUEUE_RUNS[run.kind];
  log(`${label}: a server with INBOUND_QUEUE_MAX_DEPTH=${bp.maxDepth}, BACKPRESSURE_RETRY_AFTER_S=${bp.retryAfterS}; ${run.events} events at ${run.ratePerS}/s ...`);
  const { server, base } = await ctx.startServer({ INBOUND_QUEUE_MAX_DEPTH: String(bp.maxDepth), BACKPRESSURE_RETRY_AFTER_S: String(bp.retryAfterS) }, run.kind);
  try {
    const events = mentionEvents(ctx.workspaces, run.events, `${ctx.runTag}${tag}`);
    const keys = events.map((e) => e.key);
    ctx.vendor.reset();
    const since = await databaseNow(ctx.dbUrl);
    let clockStart = performance.now();
    const sampler = await startDepthSampler(ctx.dbUrl, since, SAMPLE_MS, () => performance.now() - clockStart);
    let atFirstRefusal: Promise<DepthSample | undefined> | undefined;
    const cpuSample = startCpuSample(server.pid);
    const rss = startRssSampler([server.pid]);
    clockStart = performance.now();
    const options: DeliveryOptions = {
      url: new URL(CHAT_A_EVENTS_PATH, base),
      secret: ctx.secret,
      events,
      ratePerS: run.ratePerS,
      maxInFlight: settings.connections,
      retry: true,
      jitterMs: bp.jitterMs,
      timeoutMs: TIMEOUT_MS,
      giveUpAfterMs: settings.drainTimeoutS * 1000,
      onAnswer: (a) => {
        if (a.status === '503' && !atFirstRefusal) atFirstRefusal = sampler.now();
      },
    };
    const r = await deliverEvents(options);
    log(`  ${r.accepted} of ${r.events} accepted in ${r.spanS.toFixed(1)} s, ${r.attempts} requests: ${JSON.stringify(r.statusCounts)}`);
    const first = atFirstRefusal ? await atFirstRefusal.catch(() => undefined) : undefined;
    const drained = await drain(ctx.dbUrl, keys, r.accepted, settings.drainTimeoutS, log);
    const cpu = cpuSample.stop();
    const { peakRssMb } = rss.stop();
    const samples = await sampler.stop();
    await sleep(500);
    const counts = await countChannelRun(ctx.dbUrl, keys);
    const vendor = ctx.vendor.counts();
    const b = r.backpressure;
    const result: BackpressureResult = {
      maxDepth: bp.maxDepth,
      retryAfterS: bp.retryAfterS,
      events: events.length,
      ratePerS: run.ratePerS,
      delivery: summary(r),
      peakRssMb,
      firstRefusal:
        b.firstAtMs === null
          ? null
          : {
              atS: b.firstAtMs / 1000,
              acceptedBefore: b.acceptedBeforeFirst ?? 0,
              doneThen: first?.doneSince ?? null,
              depthByBench: first ? (b.acceptedBeforeFirst ?? 0) - first.doneSince : null,
              openDepth: first?.open ?? null,
            },
      maxOpenDepth: Math.max(0, ...samples.map((s) => s.open)),
      samples: samples.length,
      processedPerS: processedPerS(counts),
      drainSeconds: drained.seconds,
      counts,
      vendor,
      cpu,
    };
    const f = result.firstRefusal;
    log(
      `  first 503 at ${f ? `${f.atS.toFixed(2)} s, after ${f.acceptedBefore} accepted (${f.doneThen ?? '?'} done then: depth ${f.depthByBench ?? '?'}; open in the database ${f.openDepth ?? '?'})` : 'never'}; ` +
        `deepest queue seen ${result.maxOpenDepth}; processed ${counts.statuses.done ?? 0} at ${result.processedPerS?.toFixed(1) ?? '-'}/s`,
    );

    const problems: string[] = [];
    if (run.kind === 'backpressure' && b.refusals === 0) problems.push(`backpressure never engaged (no 503 in ${r.attempts} requests): more events or a higher rate`);
    if (run.kind === 'stream' && b.refusals > 0) {
      problems.push(`a steady stream of ${run.ratePerS}/s was refused ${b.refusals} times (first after ${b.acceptedBeforeFirst ?? '?'} accepted): its processing did not keep up`);
    }
    if (b.withoutRetryAfter > 0) problems.push(`${b.withoutRetryAfter} 503 answers without Retry-After`);
    if (b.badBodies > 0) problems.push(`${b.badBodies} 503 bodies that are not the spec 7.1 body (first: ${b.firstBadBody})`);
    if (b.retryAfterS.some((s) => s !== bp.retryAfterS)) problems.push(`Retry-After ${b.retryAfterS.join(', ')} s, expected ${bp.retryAfterS}`);
    if (r.notAccepted > 0) problems.push(`${r.notAccepted} events never accepted (${r.samples.join(' | ')})`);
    if (r.acceptedTwice > 0) problems.push(`${r.acceptedTwice} events accepted twice`);
    if (r.badAcceptBodies > 0) problems.push(`${r.badAcceptBodies} 200 answers without { ok: true }`);
    const others = Object.keys(r.statusCounts).filter((s) => !['200', '503', '429'].includes(s));
    if (others.length > 0) problems.push(`unexpected answers: ${others.map((s) => `${s} x${r.statusCounts[s]}`).join(', ')} (${r.samples.join(' | ')})`);
    if (drained.progress.open > 0 || drained.progress.unsent > 0) {
      problems.push(`not drained within ${settings.drainTimeoutS} s: ${drained.progress.open} events open, ${drained.progress.unsent} replies unsent`);
    }
    if (counts.stored !== events.length) problems.push(`${counts.stored} of ${events.length} events kept`);
    problems.push(...channelProblems(counts, r.accepted, r.attempts), ...vendorProblems(vendor, counts.replies));
    fail(ctx.report, log, `chat-a ${label}`, problems);
    return result;
  } finally {
    await server.stop();
  }
}
