import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LoadSettings, Measurement } from './load.js';
import type { BackpressureResult, ChannelSettings, DeliverySummary, ThroughputResult } from './channels-bench.js';
import type { QueueState, ReplyCounts } from './conversations-data.js';
import type { CpuUse } from './cpu.js';
import type { TableState } from './notifications-data.js';
import type { PlanSummary } from './pg.js';
import type { PushCounts } from './reply-watch.js';
import type { IdleSocketsResult } from './idle-sockets.js';
import type { SocketLatencyResult } from './socket-latency.js';
import { formatNumber, renderTable } from './table.js';
import type { StartTimeResult } from './start-time.js';
import type { MemoryRoundsResult } from './memory-rounds.js';
import { renderMemoryRounds } from './memory-rounds.js';
import { renderStartTime } from './start-time.js';

/**
 * One measured run of one target, in one round; with the instances that served it and the
 * highest VmRSS of each over the warm-up and the measured run (MB; null without /proc).
 */
export type RoundMeasurement = Measurement & { round: number; instances?: number; idleRssMb?: (number | null)[]; peakRssMb?: (number | null)[] };

/** All rounds of one target; with one round, the medians are that round's values. */
export interface TargetSummary {
  name: string;
  rounds: number;
  ok: boolean;
  connections: number;
  reqPerSecMedian: number;
  latencyP99MsMedian: number;
  latencyP50MsMedian: number;
  /** Lowest and highest req/s over the rounds, to show the noise. */
  reqPerSecMin: number;
  reqPerSecMax: number;
  /** The processes that answered (1 for a baseline or one server), and the peak VmRSS of each over the rounds (MB). */
  instances: number;
  /** VmRSS of each process just before the first round's load (MB): what it holds at idle. */
  idleRssMb: (number | null)[];
  peakRssMb: (number | null)[];
}

export interface RatioSpec {
  name: string;
  numerator: string;
  denominator: string;
  /** What is divided: the median req/s (default) or the median p99 latency. */
  metric?: 'req/s' | 'p99';
  /** `>=` (default): the value should reach the target; `<=`: it should stay under it. */
  comparison?: '>=' | '<=';
  /** No target: the ratio is only shown (verdict `info`). */
  target?: number;
  /** False: the target is shown with its verdict, but missing it does not fail the run. */
  enforced?: boolean;
}

export interface RatioResult extends Omit<RatioSpec, 'metric'> {
  /** req/s or p99 for a ratio of two targets; s, kB, ... for a figure checked on its own. */
  metric: 'req/s' | 'p99' | (string & {});
  comparison: '>=' | '<=';
  value: number | null;
  /** BELOW: a `>=` ratio under its target; ABOVE: a `<=` ratio over it. */
  verdict: 'PASS' | 'BELOW' | 'ABOVE' | 'info' | 'n/a';
  /** The value of the previous committed run (bench/lib/before.ts), when it had one. */
  before?: number | null;
}

/** A ratio whose target was missed and is enforced: it fails the run unless BENCH_ENFORCE=0. */
export const missedTarget = (r: RatioResult) => (r.verdict === 'BELOW' || r.verdict === 'ABOVE') && r.enforced !== false;

/** A figure with a target that is not a ratio of two targets (start time, memory per socket, RSS growth). */
export function checkValue(spec: { name: string; metric: string; value: number | null; comparison?: '>=' | '<='; target?: number; enforced?: boolean }): RatioResult {
  const comparison = spec.comparison ?? '>=';
  const { value } = spec;
  let verdict: RatioResult['verdict'] = value === null ? 'n/a' : 'info';
  if (value !== null && spec.target !== undefined) {
    if (comparison === '>=') verdict = value >= spec.target ? 'PASS' : 'BELOW';
    else verdict = value <= spec.target ? 'PASS' : 'ABOVE';
  }
  return { ...spec, numerator: '', denominator: '', comparison, value, verdict };
}

/** The state of app_notifications for one `GET /api/notifications` measurement. */
export interface TableSetup extends TableState {
  target: string;
  /** Seconds spent inserting the rows of this step, and in VACUUM (ANALYZE). */
  insertSeconds: number;
  vacuumAnalyzeSeconds: number;
}

export interface SocketSettings {
  sockets: number;
  ratePerS: number;
  durationS: number;
  warmupS: number;
  maxInFlight: number;
  connectBatch: number;
  graceS: number;
}

export interface ListSettings {
  userRows: number;
  /** Rows of the second listing user, measured on the same table. */
  bigUserRows: number;
  otherRows: number;
  otherUsers: number;
}

export interface ConversationSettings {
  /** Orgs (one client, one OSA, one conversation each) the messages go round-robin over. */
  orgs: number;
  /** Concurrent connections of the conversation and attention-list targets. */
  connections: number;
  /** How long to wait for the last pushed replies. */
  pushGraceS: number;
  /** Queue items (one conversation each) for the attention list. */
  queueItems: number;
  /** The demo Expert gets an org-wide grant on every n-th bench org. */
  expertGrantEvery: number;
}

/** "Client message sent to reply stored and pushed": what the server's run left, checked with SQL. */
export interface ConversationResult {
  /** Server instances the messages went to (round-robin). */
  instances: number;
  orgs: number;
  /** Requests written and answered 201 by the server, over the probe, the warm-up and the measured run. */
  sent: number;
  answered201: number;
  /** The baseline's rows, deleted before the server's run. */
  baselineRowsDeleted: number;
  counts: Omit<ReplyCounts, 'replyIds'>;
  /** How long the counts took to settle after the run (requests autocannon abandoned still finish). */
  settleSeconds: number;
  /** `agent_message_sent` on the account manager's socket, against the replies stored. */
  push: PushCounts;
  /** CPU during the server's warm-up and measured run. */
  cpu: CpuUse;
  /** The server's CPU time (all instances) over the warm-up and measured run, per message answered in them (ms). */
  cpuMsPerMessage: number | null;
}

/** The attention list as measured: queue_items, the Expert's reach, the plans. */
export interface QueueSetup extends QueueState {
  insertSeconds: number;
  vacuumAnalyzeSeconds: number;
}

/** What the machine was doing around the run (it is shared: other work runs beside the bench). */
export interface MachineState {
  startedAt: string;
  finishedAt: string | null;
  /** The commit the bench ran at, and whether src/ or bench/ had uncommitted changes. */
  commit: string | null;
  dirty: boolean | null;
  loadAverageStart: number[];
  loadAverageEnd: number[] | null;
  /** 3 s samples of the machine just before the run and just after it: what else was running. */
  before: CpuUse | null;
  after: CpuUse | null;
  /** The machine's busy CPU over the whole run, % of one core (up to cores x 100). */
  busyPctOverRun: number | null;
}

export interface Report {
  settings: LoadSettings & {
    rounds: number;
    parts: string[];
    /** Instances of the `cluster` part. */
    instances: number;
    idleSockets: number;
    socket: SocketSettings;
    list: ListSettings;
    conversations: ConversationSettings;
    channels: ChannelSettings;
    /** False (BENCH_ENFORCE=0): missed targets are information, the run does not fail on them. */
    enforce: boolean;
    start: { runs: number };
    memory: { rounds: number; roundS: number };
    pglite: { userRows: number; bigUserRows: number; otherRows: number; queueItems: number; connections: number };
  };
  database: string | null;
  measurements: RoundMeasurement[];
  warnings: string[];
  /** Redis used by the server for this run, and how many keys of its prefix were removed at the end. */
  redis: { url: string; prefix: string; keysDeleted: number | null } | null;
  /** The socket create-to-receive measurement, when it ran, and the server's peak VmRSS during it (MB). */
  socket: SocketLatencyResult | null;
  socketPeakRssMb: number | null;
  /** Memory per idle socket. */
  idleSockets: IdleSocketsResult | null;
  tableSetups: TableSetup[];
  conversations: ConversationResult | null;
  queue: QueueSetup | null;
  /** chat-a events accepted and processed (the reply sent), the backpressure run, and the steady stream to the same small queue. */
  channels: ThroughputResult | null;
  backpressure: BackpressureResult | null;
  stream: BackpressureResult | null;
  /** The same on several instances (the `cluster` part). */
  conversationsCluster: ConversationResult | null;
  channelsCluster: ThroughputResult | null;
  /** The machine around the run: it is shared, and the numbers depend on what else ran. */
  machine: MachineState | null;
  /** `npm start` to the first 200 of GET /api/health (the `start` part). */
  startTime: StartTimeResult | null;
  /** The server's VmRSS and V8 heap after each round of the same load (the `memory` part). */
  memoryRounds: MemoryRoundsResult | null;
  /** The message and attention-list parts on the embedded database (the `pglite` part). */
  conversationsPglite: ConversationResult | null;
  queuePglite: QueueSetup | null;
  /** Targets missed (enforced ones fail the run unless BENCH_ENFORCE=0). */
  targetsMissed: string[];
  /** Problems found after a step that still let the run go on (lost events, ...): they fail the run. */
  failures: string[];
  error: string | undefined;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

const isClean = (m: Measurement) => m.non2xx === 0 && m.errors === 0 && m.mismatches === 0 && m.count2xx > 0;

/** The element-wise maximum of per-instance peaks over rounds (null where no round had a reading). */
function peakOver(rounds: (number | null)[][]): (number | null)[] {
  const width = Math.max(0, ...rounds.map((r) => r.length));
  return Array.from({ length: width }, (_, i) => {
    const values = rounds.map((r) => r[i]).filter((v): v is number => typeof v === 'number');
    return values.length > 0 ? Math.max(...values) : null;
  });
}

/** One summary per target, in the order targets were first measured. */
export function summarize(measurements: RoundMeasurement[]): TargetSummary[] {
  const names = [...new Set(measurements.map((m) => m.name))];
  return names.map((name) => {
    const runs = measurements.filter((m) => m.name === name);
    const rps = runs.map((m) => m.reqPerSecMean);
    return {
      name,
      rounds: runs.length,
      ok: runs.every(isClean),
      connections: runs[0]?.connections ?? 0,
      reqPerSecMedian: median(rps),
      latencyP99MsMedian: median(runs.map((m) => m.latencyP99Ms)),
      latencyP50MsMedian: median(runs.map((m) => m.latencyP50Ms)),
      reqPerSecMin: Math.min(...rps),
      reqPerSecMax: Math.max(...rps),
      instances: runs[0]?.instances ?? 1,
      idleRssMb: runs[0]?.idleRssMb ?? [],
      peakRssMb: peakOver(runs.map((m) => m.peakRssMb ?? [])),
    };
  });
}

/** Ratios of medians (req/s or p99); n/a when either side is missing or had a failed run. */
export function computeRatios(specs: RatioSpec[], summaries: TargetSummary[]): RatioResult[] {
  return specs.map((spec) => {
    const metric = spec.metric ?? 'req/s';
    const comparison = spec.comparison ?? '>=';
    const of = (name: string) => {
      const s = summaries.find((x) => x.name === name);
      if (!s || !s.ok) return undefined;
      return metric === 'p99' ? s.latencyP99MsMedian : s.reqPerSecMedian;
    };
    const num = of(spec.numerator);
    const den = of(spec.denominator);
    if (num === undefined || den === undefined || den <= 0) return { ...spec, metric, comparison, value: null, verdict: 'n/a' };
    const value = num / den;
    let verdict: RatioResult['verdict'] = 'info';
    if (spec.target !== undefined) {
      if (comparison === '>=') verdict = value >= spec.target ? 'PASS' : 'BELOW';
      else verdict = value <= spec.target ? 'PASS' : 'ABOVE';
    }
    return { ...spec, metric, comparison, value, verdict };
  });
}

const ms = (value: number) => formatNumber(value, 1);

function cpuLine(cpu: Omit<CpuUse, 'topProcesses'>): string {
  const server = cpu.serverPct === null ? 'n/a' : `${formatNumber(cpu.serverPct)}%`;
  return `bench ${formatNumber(cpu.benchPct)}%, server ${server}, machine ${formatNumber(cpu.machineBusyPct)}% of ${cpu.cores * 100}%`;
}

const topLine = (top: CpuUse['topProcesses']) => top.map((p) => `${p.command} ${formatNumber(p.cpuPct)}%`).join(', ');

function planLine(p: PlanSummary): string {
  return `${p.plan}${p.planExecutionMs === null ? '' : ` (${p.planExecutionMs.toFixed(2)} ms${p.planBuffers ? `, ${p.planBuffers}` : ''})`}`;
}

function renderSocket(r: SocketLatencyResult): string {
  const m = r.measured;
  const failed = Object.entries(m.failedPosts)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  const rows: [string, string][] = [
    ['sockets connected (one user each)', `${formatNumber(r.sockets)} in ${r.connectSeconds.toFixed(1)} s (connect p99 ${ms(r.connectMs.p99)} ms)`],
    ['rate: target / achieved', `${formatNumber(r.targetRatePerS)} / ${formatNumber(r.achievedRatePerS, 1)} per s for ${r.durationS} s (+ ${r.warmupS} s warm-up), at most ${r.maxInFlight} in flight`],
    ['POSTs sent / answered 201', `${formatNumber(m.sent)} / ${formatNumber(m.created)}${failed ? ` (others: ${failed})` : ''}`],
    ['events received (distinct)', formatNumber(m.received)],
    ['lost (201, no event within the grace period)', `${formatNumber(m.lost)}${r.warmup.lost ? ` (+ ${r.warmup.lost} in the warm-up)` : ''}`],
    ['duplicated (extra deliveries)', `${formatNumber(m.duplicated)}${r.warmup.duplicated ? ` (+ ${r.warmup.duplicated} in the warm-up)` : ''}`],
    ['create-to-receive p50 / p99 / max (ms)', `${ms(r.latencyMs.p50)} / ${ms(r.latencyMs.p99)} / ${ms(r.latencyMs.max)}`],
    ['POST answer p50 / p99 (ms)', `${ms(r.postMs.p50)} / ${ms(r.postMs.p99)}`],
    ['send lag behind schedule p99 / max (ms)', `${ms(r.sendLagMs.p99)} / ${ms(r.sendLagMs.max)}`],
    ['CPU while sending (% of one core)', cpuLine(r.cpu)],
    ['bench event-loop delay p99 / max (ms)', `${ms(r.benchEventLoopDelayMs.p99)} / ${ms(r.benchEventLoopDelayMs.max)}`],
  ];
  if (r.topProcesses.length > 0) rows.push(['top CPU while sending (% of one core)', topLine(r.topProcesses)]);
  if (r.unexpected || r.misrouted || r.foreign) {
    rows.push(['unexpected / misrouted / foreign events', `${r.unexpected} / ${r.misrouted} / ${r.foreign}`]);
  }
  if (r.disconnects.length > 0) {
    const first = r.disconnects[0]!;
    rows.push(['sockets disconnected during the run', `${r.disconnects.length} (first: "${first.reason}" at ${first.atS.toFixed(1)} s)`]);
  }
  return renderTable([{ title: 'socket notification:new' }, { title: 'value' }], rows);
}

function renderTableSetups(setups: TableSetup[]): string {
  return renderTable(
    [
      { title: 'app_notifications for' },
      { title: 'rows', align: 'right' },
      { title: "user's", align: 'right' },
      { title: 'size', align: 'right' },
      { title: 'insert (s)', align: 'right' },
      { title: 'list query plan (EXPLAIN ANALYZE, one run)' },
    ],
    setups.map((t) => [t.target, formatNumber(t.rows), formatNumber(t.rowsForUser), t.totalSize, t.insertSeconds.toFixed(1), planLine(t)]),
  );
}

function renderConversations(r: ConversationResult): string {
  const c = r.counts;
  const p = r.push;
  const turns = Object.entries(c.openTurns)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  const rows: [string, string][] = [
    ['server instances (messages round-robin over them)', String(r.instances)],
    ['orgs (one client, OSA and conversation each)', formatNumber(r.orgs)],
    ['POSTs sent / answered 201 (probe, warm-up, measured)', `${formatNumber(r.sent)} / ${formatNumber(r.answered201)}`],
    ['client messages stored / Specialist replies stored', `${formatNumber(c.clientMessages)} / ${formatNumber(c.replies)}`],
    ['unanswered / answered twice / stray replies', `${c.unanswered} / ${c.answeredTwice} / ${c.strayReplies}`],
    ['turns not done', turns || 'none'],
    ['llm_runs rows (one per model call)', formatNumber(c.ledgerRows)],
    ['counts settled after the run in (s)', r.settleSeconds.toFixed(1)],
    ['agent_message_sent on the AM socket: received / expected', `${formatNumber(p.received)} / ${formatNumber(p.expected)}`],
    ['pushes lost / duplicated / unexpected', `${p.lost} / ${p.duplicated} / ${p.unexpected}${p.disconnects.length ? `; socket disconnected: ${p.disconnects.join(', ')}` : ''}`],
    ["rows deleted before the server ran (the baseline's or an earlier run's)", formatNumber(r.baselineRowsDeleted)],
    ['CPU during the server run (% of one core)', cpuLine(r.cpu)],
    ['server CPU per message answered (ms, warm-up and measured run)', r.cpuMsPerMessage === null ? '-' : r.cpuMsPerMessage.toFixed(1)],
  ];
  if (r.cpu.topProcesses.length > 0) rows.push(['top CPU during the server run', topLine(r.cpu.topProcesses)]);
  return renderTable([{ title: 'client message -> reply stored and pushed' }, { title: 'value' }], rows);
}

function renderQueue(q: QueueSetup): string {
  const head =
    `queue_items: ${formatNumber(q.items)} rows (${q.totalSize}), inserted with their conversations in ${q.insertSeconds.toFixed(1)} s, ` + `vacuum analyze ${q.vacuumAnalyzeSeconds.toFixed(1)} s`;
  const table = renderTable(
    [{ title: 'attention list as' }, { title: 'orgs', align: 'right' }, { title: 'items', align: 'right' }, { title: 'list query plan (EXPLAIN ANALYZE, one run)' }],
    [
      ['demo Expert (grants)', formatNumber(q.expertOrgs), formatNumber(q.itemsForExpert), planLine(q.expertPlan)],
      ["demo Expert, the baseline's SQL", formatNumber(q.expertOrgs), formatNumber(q.itemsForExpert), planLine(q.expertBaselinePlan)],
      ['superadmin (all orgs)', 'all', formatNumber(q.items), planLine(q.allPlan)],
    ],
  );
  return `${head}\n${table}`;
}

const seconds = (value: number | null) => (value === null ? '-' : `${value.toFixed(1)} s`);
const counted = (record: Record<string, number>) =>
  Object.entries(record)
    .map(([k, v]) => `${k} ${formatNumber(v)}`)
    .join(', ') || 'none';

function answersLine(d: DeliverySummary): string {
  return `${formatNumber(d.accepted)} of ${formatNumber(d.events)} in ${d.acceptSpanS.toFixed(2)} s = ${formatNumber(d.acceptedPerS, 1)}/s; answer p50 / p99 ${ms(d.latencyMs.p50)} / ${ms(d.latencyMs.p99)} ms`;
}

/** The SQL checks of a chat-a run: one message, one reply, one turn and one sent reply per event. */
function channelCountRows(c: ThroughputResult['counts']): [string, string][] {
  return [
    ['inbound_events kept, by status', `${formatNumber(c.stored)}: ${counted(c.statuses)}`],
    ['conversations / client messages / replies / turns', `${formatNumber(c.conversations)} / ${formatNumber(c.clientMessages)} / ${formatNumber(c.replies)} / ${formatNumber(c.turns)}`],
    ['lost or doubled: unanswered / answered twice / stray / shared / turns open', `${c.unanswered} / ${c.answeredTwice} / ${c.strayReplies} / ${c.sharedMessages} / ${c.openTurns}`],
    ['outbox rows, by status (replies without a row)', `${formatNumber(c.outbox)}: ${counted(c.outboxStatuses)} (${c.repliesWithoutOutbox})`],
  ];
}

function waitsRow(c: ThroughputResult['counts']): [string, string] {
  const spread = (w: ThroughputResult['counts']['eventWaitS']) => (w ? `${w.p50.toFixed(1)} / ${w.p99.toFixed(1)} / ${w.max.toFixed(1)}` : '-');
  return ['wait (s, p50 / p99 / max): event received -> done; reply in the outbox -> sent', `${spread(c.eventWaitS)}; ${spread(c.replyWaitS)}`];
}

function timelineRow(c: ThroughputResult['counts']): [string, string] {
  return ['events done per 5 s after the first received', c.donePer5s.join(' ') || '-'];
}

function vendorRow(v: ThroughputResult['vendor']): [string, string] {
  return [
    'vendor chat.postMessage: calls / distinct replies / sent twice / misrouted',
    `${formatNumber(v.calls)} / ${formatNumber(v.distinctReplies)} / ${v.repeatedReplies} / ${v.misrouted + v.withoutKey}`,
  ];
}

function renderChannels(r: ThroughputResult): string {
  const c = r.counts;
  const rows: [string, string][] = [
    ['server instances (events round-robin over them)', String(r.instances)],
    ['workspaces (orgs bound by a chat-a integration)', formatNumber(r.workspaces)],
    ['events: warm-up (not timed) + measured', `${formatNumber(r.warmupEvents)} + ${formatNumber(r.events)}`],
    ['baseline: accepted (200), rows stored', r.baseline ? `${answersLine(r.baseline)}; ${formatNumber(r.baseline.rowsStored)} rows` : 'not measured again'],
    ['server: accepted at the webhook (200)', answersLine(r.server)],
    ['server: answers', counted(r.server.statusCounts)],
    ['processed (inbound_events done)', `${formatNumber(c.statuses.done ?? 0)} in ${seconds(c.lastDoneS)} = ${r.processedPerS === null ? '-' : formatNumber(r.processedPerS, 1)}/s`],
    ['last event received / done / reply in the outbox / sent', `${seconds(c.lastReceivedS)} / ${seconds(c.lastDoneS)} / ${seconds(c.lastOutboxS)} / ${seconds(c.lastSentS)} after the first received`],
    ['waited after the last acceptance (drain)', seconds(r.drainSeconds)],
    waitsRow(c),
    timelineRow(c),
    ...channelCountRows(c),
    ['llm_runs rows', formatNumber(c.ledgerRows)],
    vendorRow(r.vendor),
    ['CPU while accepting (% of one core)', cpuLine(r.cpuAccept)],
    ['CPU while draining (% of one core)', cpuLine(r.cpuDrain)],
  ];
  if (r.cpuDrain.topProcesses.length > 0) rows.push(['top CPU while draining', topLine(r.cpuDrain.topProcesses)]);
  return renderTable([{ title: 'chat-a app_mention -> reply sent' }, { title: 'value' }], rows);
}

function renderIdleSockets(r: IdleSocketsResult): string {
  const mb = (v: number | null) => (v === null ? '-' : `${formatNumber(v, 1)} MB`);
  const kb = (v: number | null) => (v === null ? '-' : `${formatNumber(v, 1)} kB`);
  const rows: [string, string][] = [
    ['sockets connected and left idle (a server of their own)', `${formatNumber(r.sockets)} in ${r.connectSeconds.toFixed(1)} s`],
    ['server VmRSS before / with them all connected', `${mb(r.rssBeforeMb)} / ${mb(r.rssAfterMb)}`],
    ['memory per idle socket (VmRSS growth / sockets)', kb(r.perSocketKb)],
    ['V8 heap used before / after (/metrics), per socket', `${mb(r.heapUsedBeforeMb)} / ${mb(r.heapUsedAfterMb)}, ${kb(r.perSocketHeapKb)}`],
    ['server VmRSS after they all closed', mb(r.rssAfterCloseMb)],
    ['bench process growth while holding the clients', mb(r.benchRssGrowthMb)],
    ['sockets closed by the server while idle', String(r.disconnects)],
  ];
  return renderTable([{ title: 'idle sockets' }, { title: 'value' }], rows);
}

function renderBackpressure(r: BackpressureResult, title = 'chat-a backpressure'): string {
  const d = r.delivery;
  const b = d.backpressure;
  const f = r.firstRefusal;
  const rows: [string, string][] = [
    ['server: INBOUND_QUEUE_MAX_DEPTH / BACKPRESSURE_RETRY_AFTER_S', `${formatNumber(r.maxDepth)} / ${r.retryAfterS} s`],
    ['events, first attempts per second', `${formatNumber(r.events)} at ${formatNumber(r.ratePerS)}/s`],
    ['requests, by answer', `${formatNumber(d.attempts)}: ${counted(d.statusCounts)}`],
    [
      'first 503: when, accepted before, done then, depth',
      f ? `${f.atS.toFixed(2)} s, ${formatNumber(f.acceptedBefore)} accepted, ${f.doneThen ?? '?'} done: depth ${f.depthByBench ?? '?'} (open in the database: ${f.openDepth ?? '?'})` : 'no 503',
    ],
    ['deepest open queue sampled (every 200 ms)', `${formatNumber(r.maxOpenDepth)}, ${Math.max(0, r.maxOpenDepth - r.maxDepth)} over the limit (${r.samples} samples)`],
    ['503 without Retry-After / not the spec 7.1 body', `${b.withoutRetryAfter} / ${b.badBodies}${b.firstBadBody ? ` (${b.firstBadBody})` : ''}`],
    ['Retry-After seen (s)', b.retryAfterS.join(', ') || '-'],
    ['events retried / most attempts of one event', `${formatNumber(d.retriedEvents)} / ${d.maxAttempts}`],
    ['never accepted / accepted twice / duplicate answers', `${d.notAccepted} / ${d.acceptedTwice} / ${d.duplicateAnswers}`],
    ['all accepted after (s)', d.acceptSpanS.toFixed(1)],
    ['processed (inbound_events done)', `${formatNumber(r.counts.statuses.done ?? 0)} in ${seconds(r.counts.lastDoneS)} = ${r.processedPerS === null ? '-' : formatNumber(r.processedPerS, 1)}/s`],
    ['last reply sent (after the first event received)', seconds(r.counts.lastSentS)],
    waitsRow(r.counts),
    timelineRow(r.counts),
    ...channelCountRows(r.counts),
    vendorRow(r.vendor),
    ['CPU over the run (% of one core)', cpuLine(r.cpu)],
  ];
  return renderTable([{ title }, { title: 'value' }], rows);
}

const ratioValue = (v: number | null | undefined) => (v === null || v === undefined ? '-' : v.toFixed(2));

/** The target of a ratio as shown: `>= 0.80`, `<= 1.50 (info)` for one that does not fail the run, `-` for none. */
export const targetText = (r: RatioResult) => (r.target === undefined ? '-' : `${r.comparison} ${r.target.toFixed(2)}${r.enforced === false ? ' (info)' : ''}`);

/** The ratios and checked figures: the previous committed run's value (before), this run's, the target and the verdict. */
export function renderRatios(ratios: RatioResult[]): string {
  return renderTable(
    [{ title: 'ratio (of medians) or figure' }, { title: 'metric' }, { title: 'before', align: 'right' }, { title: 'now', align: 'right' }, { title: 'target', align: 'right' }, { title: 'verdict' }],
    ratios.map((r) => [
      r.name,
      r.metric,
      ratioValue(r.before),
      ratioValue(r.value),
      targetText(r),
      r.verdict === 'info' || r.verdict === 'n/a' || r.enforced !== false ? r.verdict : `${r.verdict} (info)`,
    ]),
  );
}

export function renderReport(report: Report, summaries: TargetSummary[], ratios: RatioResult[]): string {
  const multi = report.settings.rounds > 1;
  const failed = (name: string) => {
    const bad = report.measurements.filter((m) => m.name === name && !isClean(m));
    return bad.map((m) => `FAILED${multi ? ` (round ${m.round})` : ''} ${JSON.stringify(m.statusCodes)} errors ${m.errors}`).join('; ');
  };
  const targetTable = renderTable(
    [
      { title: 'target' },
      { title: multi ? 'req/s (median of means)' : 'req/s (mean)', align: 'right' },
      ...(multi ? [{ title: 'req/s min-max', align: 'right' as const }] : []),
      { title: 'conn.', align: 'right' },
      { title: 'p99 (ms)', align: 'right' },
      { title: 'p50 (ms)', align: 'right' },
      { title: 'answers' },
    ],
    summaries.map((s) => [
      s.name,
      formatNumber(s.reqPerSecMedian, 1),
      ...(multi ? [`${formatNumber(s.reqPerSecMin)}-${formatNumber(s.reqPerSecMax)}`] : []),
      String(s.connections),
      formatNumber(s.latencyP99MsMedian),
      formatNumber(s.latencyP50MsMedian),
      s.ok ? 'all 2xx' : failed(s.name),
    ]),
  );
  const ratioTable = renderRatios(ratios);
  const s = report.settings;
  const header =
    `${s.connections} connections unless told (conn.), pipelining ${s.pipelining}, ${s.warmupS} s warm-up + ${s.durationS} s measured` +
    `${multi ? `, ${s.rounds} rounds` : ''}; node ${process.version}, ${os.cpus().length} cpus` +
    `${report.redis ? `; server with Redis (prefix ${report.redis.prefix})` : ''}`;
  const parts = summaries.length > 0 ? [header, '', targetTable, '', ratioTable] : ratios.length > 0 ? [header, '', ratioTable] : [header];
  if (report.startTime) parts.push('', renderStartTime(report.startTime));
  if (report.memoryRounds) parts.push('', renderMemoryRounds(report.memoryRounds));
  if (report.socket) parts.push('', renderSocket(report.socket));
  if (report.idleSockets) parts.push('', renderIdleSockets(report.idleSockets));
  if (report.tableSetups.length > 0) parts.push('', renderTableSetups(report.tableSetups));
  if (report.conversations) parts.push('', renderConversations(report.conversations));
  if (report.queue) parts.push('', renderQueue(report.queue));
  if (report.channels) parts.push('', renderChannels(report.channels));
  if (report.backpressure) parts.push('', renderBackpressure(report.backpressure));
  if (report.stream) parts.push('', renderBackpressure(report.stream, 'chat-a steady stream'));
  if (report.conversationsCluster) parts.push('', renderConversations(report.conversationsCluster));
  if (report.channelsCluster) parts.push('', renderChannels(report.channelsCluster));
  if (report.conversationsPglite) parts.push('', 'On PGlite (the embedded database):', renderConversations(report.conversationsPglite));
  if (report.queuePglite) parts.push('', 'On PGlite (the embedded database):', renderQueue(report.queuePglite));
  return parts.join('\n');
}

export async function writeReport(file: string, report: Report, summaries: TargetSummary[], ratios: RatioResult[]): Promise<void> {
  const doc = {
    ok: report.error === undefined,
    error: report.error ?? null,
    finishedAt: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: os.cpus().length,
    settings: report.settings,
    database: report.database,
    redis: report.redis,
    summary: summaries,
    ratios,
    machine: report.machine,
    socket: report.socket,
    socketPeakRssMb: report.socketPeakRssMb,
    idleSockets: report.idleSockets,
    tableSetups: report.tableSetups,
    conversations: report.conversations,
    queue: report.queue,
    channels: report.channels,
    backpressure: report.backpressure,
    stream: report.stream,
    conversationsCluster: report.conversationsCluster,
    channelsCluster: report.channelsCluster,
    startTime: report.startTime,
    memoryRounds: report.memoryRounds,
    conversationsPglite: report.conversationsPglite,
    queuePglite: report.queuePglite,
    targetsMissed: report.targetsMissed,
    failures: report.failures,
    warnings: report.warnings,
    runs: report.measurements,
  };
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(doc, null, 2)}\n`);
}
