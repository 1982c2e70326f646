import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CpuUse } from './cpu.js';
import { targetText, type RatioResult, type Report, type TargetSummary } from './report.js';
import { formatNumber, renderTable } from './table.js';

/*
 * The one table of a run: every part, on one instance and (the `cluster` part) on several, with
 * req/s, p50, p99, the ratio to the bare baseline measured in the same run and the peak resident
 * size of each process that answered; printed, and written with the machine's state to
 * bench/results/latest.md.
 */

export type SummaryNote = (report: Report) => string;

/** A row of an autocannon target (or a chat-a delivery), compared with its baseline (req/s). */
export interface TargetItem {
  target: string;
  baseline?: string;
  /** What the ratio column divides: req/s (default), or p99 (the list rows: the target's p99 over the baseline's). */
  metric?: 'req/s' | 'p99';
  note?: SummaryNote;
}

/** The rows measured otherwise: the socket push, the idle sockets, the chat-a processing, backpressure and steady stream. */
export type SpecialItem = { special: 'start' | 'memory' | 'socket' | 'idle-sockets' | 'chat-a processed' | 'chat-a processed (cluster)' | 'backpressure' | 'stream' };

export type SummaryItem = TargetItem | SpecialItem;

export interface SummaryRow {
  target: string;
  instances: string;
  connections: string;
  reqPerS: string;
  p50: string;
  p99: string;
  ratio: string;
  baseline: string;
  rss: string;
  note: string;
}

/** A cluster target's name: the one-instance name and the instance count. */
export const onInstances = (name: string, instances: number) => `${name} [${instances} instances]`;
const INSTANCES_SUFFIX = / \[\d+ instances\]$/;
/** A target measured again on the embedded database (the `pglite` part). */
export const onPglite = (name: string) => `${name} [PGlite]`;
const isPglite = (name: string) => name.endsWith(' [PGlite]');
const displayName = (name: string) => name.replace(INSTANCES_SUFFIX, '');

const rssText = (peaks: (number | null)[]) => (peaks.length === 0 ? '-' : peaks.map((v) => (v === null ? '-' : formatNumber(v))).join(' / '));
const mbText = (v: number | null | undefined) => (v === null || v === undefined ? '-' : formatNumber(v));
/** Each instance's VmRSS before the load and its peak under it: `170 -> 176 / 168 -> 172`. */
const idlePeakText = (idle: (number | null)[], peaks: (number | null)[]) =>
  peaks.length === 0 ? '-' : peaks.map((peak, i) => (idle.length === 0 ? mbText(peak) : `${mbText(idle[i])} -> ${mbText(peak)}`)).join(' / ');
const msText = (v: number | null | undefined) => (v === null || v === undefined ? '-' : formatNumber(v, v < 10 && !Number.isInteger(v) ? 1 : 0));

function targetRow(item: TargetItem, summaries: TargetSummary[], report: Report): SummaryRow | null {
  const s = summaries.find((x) => x.name === item.target);
  if (!s) return null;
  const base = item.baseline ? summaries.find((x) => x.name === item.baseline) : undefined;
  const byP99 = item.metric === 'p99';
  const ratio =
    !base || !base.ok || !s.ok
      ? null
      : byP99
        ? base.latencyP99MsMedian > 0
          ? s.latencyP99MsMedian / base.latencyP99MsMedian
          : null
        : base.reqPerSecMedian > 0
          ? s.reqPerSecMedian / base.reqPerSecMedian
          : null;
  const isBaseline = !s.name.startsWith('server ');
  return {
    target: displayName(s.name),
    instances: isBaseline ? '-' : String(s.instances),
    connections: String(s.connections),
    reqPerS: s.ok ? formatNumber(s.reqPerSecMedian, 1) : 'FAILED',
    p50: msText(s.latencyP50MsMedian),
    p99: msText(s.latencyP99MsMedian),
    // The embedded database's rows have no targets: their ratios are information.
    ratio: ratio === null ? '-' : `${byP99 ? 'p99 ' : ''}${ratio.toFixed(2)}${isPglite(s.name) ? ' (info)' : ''}`,
    baseline: base ? displayName(base.name) : '-',
    rss: idlePeakText(s.idleRssMb, s.peakRssMb),
    note: item.note?.(report) ?? '',
  };
}

/** Events processed per second as the rate, each event's wait in the queue (received -> done) as the latencies. */
function processedCells(r: { processedPerS: number | null; counts: { eventWaitS: { p50: number; p99: number } | null } }): Pick<SummaryRow, 'reqPerS' | 'p50' | 'p99'> {
  const wait = r.counts.eventWaitS;
  return {
    reqPerS: r.processedPerS === null ? '-' : formatNumber(r.processedPerS, 1),
    p50: wait ? msText(wait.p50 * 1000) : '-',
    p99: wait ? msText(wait.p99 * 1000) : '-',
  };
}

function specialRow(item: SpecialItem, report: Report): SummaryRow | null {
  const empty = { connections: '-', ratio: '-', baseline: '-' };
  switch (item.special) {
    case 'start': {
      const r = report.startTime;
      if (!r) return null;
      return {
        ...empty,
        target: `${r.command} to the first 200 of GET /api/health (embedded database, previous DATA_DIR)`,
        instances: '1',
        reqPerS: '-',
        p50: '-',
        p99: '-',
        rss: `${rssText(r.readyRssMb)} when ready`,
        note: `median ${r.medianS.toFixed(2)} s of ${r.startsS.map((x) => x.toFixed(2)).join(' / ')} s; first start on a new DATA_DIR ${r.firstStartS.toFixed(1)} s`,
      };
    }
    case 'memory': {
      const r = report.memoryRounds;
      if (!r) return null;
      return {
        ...empty,
        target: `memory: ${r.rounds.length} rounds of server POST /api/notifications`,
        instances: '1',
        reqPerS: '-',
        p50: '-',
        p99: '-',
        rss: `${mbText(r.rssBeforeMb)} -> ${r.rounds.map((x) => mbText(x.rssMb)).join(' -> ')}`,
        note: `VmRSS after each round, ${mbText(r.rssAfterRunMb)} MB after the run; V8 heap after a full GC ${mbText(r.heapBeforeMb)} -> ${r.rounds.map((x) => mbText(x.heapAfterGcMb)).join(' -> ')} MB, last / first round ${r.growth === null ? '-' : r.growth.toFixed(2)}`,
      };
    }
    case 'socket': {
      const r = report.socket;
      if (!r) return null;
      return {
        ...empty,
        target: `socket notification:new, POST -> event (${formatNumber(r.sockets)} sockets)`,
        instances: '1',
        connections: String(r.maxInFlight),
        reqPerS: formatNumber(r.achievedRatePerS, 1),
        p50: msText(r.latencyMs.p50),
        p99: msText(r.latencyMs.p99),
        rss: rssText([report.socketPeakRssMb]),
        note: `fixed rate ${formatNumber(r.targetRatePerS)}/s; ${r.measured.lost} lost, ${r.measured.duplicated} duplicated`,
      };
    }
    case 'idle-sockets': {
      const r = report.idleSockets;
      if (!r) return null;
      return {
        ...empty,
        target: `idle sockets connected (${formatNumber(r.sockets)})`,
        instances: '1',
        reqPerS: '-',
        p50: '-',
        p99: '-',
        rss: `${r.rssBeforeMb === null ? '-' : formatNumber(r.rssBeforeMb)} -> ${r.rssAfterMb === null ? '-' : formatNumber(r.rssAfterMb)}`,
        note: `${r.perSocketKb === null ? '-' : formatNumber(r.perSocketKb, 1)} kB per idle socket (VmRSS; V8 heap ${r.perSocketHeapKb === null ? '-' : formatNumber(r.perSocketHeapKb, 1)} kB)`,
      };
    }
    case 'chat-a processed':
    case 'chat-a processed (cluster)': {
      const r = item.special === 'chat-a processed' ? report.channels : report.channelsCluster;
      if (!r) return null;
      return {
        ...empty,
        target: 'chat-a events processed to a sent reply (received -> done)',
        instances: String(r.instances),
        ...processedCells(r),
        rss: rssText(r.peakRssMb),
        note: `${formatNumber(r.counts.statuses.done ?? 0)} events done, ${r.vendor.repeatedReplies} replies sent twice; latencies are each event's wait in the queue`,
      };
    }
    case 'backpressure': {
      const r = report.backpressure;
      if (!r) return null;
      const f = r.firstRefusal;
      return {
        ...empty,
        target: `chat-a backpressure (queue limit ${formatNumber(r.maxDepth)})`,
        instances: '1',
        connections: '-',
        reqPerS: formatNumber(r.delivery.acceptedPerS, 1),
        p50: msText(r.delivery.latencyMs.p50),
        p99: msText(r.delivery.latencyMs.p99),
        rss: rssText(r.peakRssMb),
        note: `first 503 at depth ${f?.depthByBench ?? '?'}; ${r.delivery.notAccepted} never accepted, ${r.delivery.acceptedTwice} accepted twice`,
      };
    }
    case 'stream': {
      const r = report.stream;
      if (!r) return null;
      return {
        ...empty,
        target: `chat-a steady stream at ${formatNumber(r.ratePerS)}/s (queue limit ${formatNumber(r.maxDepth)}), received -> done`,
        instances: '1',
        connections: '-',
        ...processedCells(r),
        rss: rssText(r.peakRssMb),
        note: `${r.delivery.backpressure.refusals} refused (503), deepest queue ${formatNumber(r.maxOpenDepth)}; events processed per second; latencies are each event's wait in the queue`,
      };
    }
  }
}

export function summaryRows(items: SummaryItem[], summaries: TargetSummary[], report: Report): SummaryRow[] {
  const rows: SummaryRow[] = [];
  for (const item of items) {
    const row = 'special' in item ? specialRow(item, report) : targetRow(item, summaries, report);
    if (row) rows.push(row);
  }
  return rows;
}

const COLUMNS = [
  { title: 'target', key: 'target', align: 'left' },
  { title: 'inst.', key: 'instances', align: 'right' },
  { title: 'conn.', key: 'connections', align: 'right' },
  { title: 'req/s', key: 'reqPerS', align: 'right' },
  { title: 'p50 (ms)', key: 'p50', align: 'right' },
  { title: 'p99 (ms)', key: 'p99', align: 'right' },
  { title: 'ratio', key: 'ratio', align: 'right' },
  { title: 'baseline (same run)', key: 'baseline', align: 'left' },
  { title: 'RSS idle -> peak (MB) per instance', key: 'rss', align: 'right' },
  { title: 'notes', key: 'note', align: 'left' },
] as const;

export function renderSummary(rows: SummaryRow[]): string {
  return renderTable(
    COLUMNS.map((c) => ({ title: c.title, align: c.align })),
    rows.map((r) => COLUMNS.map((c) => r[c.key])),
  );
}

function renderSummaryMarkdown(rows: SummaryRow[]): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const head = `| ${COLUMNS.map((c) => c.title).join(' | ')} |`;
  const rule = `|${COLUMNS.map((c) => (c.align === 'right' ? ' ---: ' : ' --- ')).join('|')}|`;
  return [head, rule, ...rows.map((r) => `| ${COLUMNS.map((c) => cell(r[c.key])).join(' | ')} |`)].join('\n');
}

function renderRatiosMarkdown(ratios: RatioResult[]): string {
  const value = (v: number | null | undefined) => (v === null || v === undefined ? '-' : v.toFixed(2));
  const lines = ['| ratio or figure | metric | before | now | target | verdict |', '| --- | --- | ---: | ---: | ---: | --- |'];
  for (const r of ratios) {
    const verdict = r.verdict === 'BELOW' || r.verdict === 'ABOVE' ? `**${r.verdict}**${r.enforced === false ? ' (info)' : ''}` : r.verdict;
    lines.push(`| ${r.name} | ${r.metric} | ${value(r.before)} | ${value(r.value)} | ${targetText(r)} | ${verdict} |`);
  }
  return lines.join('\n');
}

const load = (values: number[] | null) => (values ? values.map((v) => v.toFixed(2)).join(' / ') : '-');

/** bench/results/latest.md: the table, the machine's state and the whole printed report. */
export async function writeMarkdown(file: string, report: Report, rows: SummaryRow[], printed: string, ratios: RatioResult[], before: string): Promise<void> {
  const s = report.settings;
  const m = report.machine;
  const top = (c: CpuUse | null | undefined) => (c ? `${formatNumber(c.machineBusyPct)}% busy; the most CPU: ${c.topProcesses.map((p) => `${p.command} ${formatNumber(p.cpuPct)}%`).join(', ')}` : '-');
  const lines = [
    '# Benchmark: the latest run',
    '',
    'Written by `npm run bench` (see `bench/README.md`); every count of the run is in `bench/results/latest.json`, which is not committed.',
    '',
    `- **Run**: ${m?.startedAt ?? '?'} to ${m?.finishedAt ?? '?'}, commit ${m?.commit ?? 'unknown'}${m?.dirty ? ' with uncommitted changes in src/ or bench/' : ''}; ` +
      `Node ${process.version}, ${os.cpus().length} CPUs (${process.platform} ${process.arch}).`,
    `- **Result**: ${report.error === undefined ? 'every check passed' : `FAILED: ${report.error.split('\n')[0]}`}; ` +
      `${report.targetsMissed.length === 0 ? 'every target met' : `${report.targetsMissed.length} target(s) missed (${report.targetsMissed.join('; ')})${s.enforce ? '' : ', not failing the run (BENCH_ENFORCE=0)'}`}.`,
    `- **Parts**: ${s.parts.join(', ')}.` +
      (s.parts.includes('cluster')
        ? ` The \`cluster\` part runs the HTTP-shaped parts again on ${s.instances} instances started with \`npm run start:cluster -- --instances ${s.instances}\`, ` +
          `one autocannon run per target spreading its connections round-robin over the ${s.instances} ports (connection i keeps port i mod ${s.instances}); ` +
          'the chat-a sender goes round-robin per request.'
        : ''),
    `- **Settings**: ${s.connections} connections (${s.conversations.connections} for the conversation and attention-list targets), pipelining ${s.pipelining}, ` +
      `${s.warmupS} s warm-up + ${s.durationS} s measured per target, ${s.rounds} round(s).`,
    `- **Machine**: ${machineState(m?.before)}. ` +
      `Load average (1, 5, 15 min) ${load(m?.loadAverageStart ?? null)} at the start, ${load(m?.loadAverageEnd ?? null)} at the end; ` +
      `busy ${m?.busyPctOverRun === null || m?.busyPctOverRun === undefined ? '-' : formatNumber(m.busyPctOverRun)}% of ${os.cpus().length * 100}% over the whole run. ` +
      `In the 3 s before the run: ${top(m?.before)}; in the 3 s after it: ${top(m?.after)} (% of one core; "postgres" is all its backends).`,
    `- **Noise**: the load generator, the servers, PostgreSQL, Redis and everything else share ${os.cpus().length} cores. Runs of the same code have differed by 1.5-2x on a busy machine; ` +
      'compare the ratios within one run (each against a baseline measured minutes apart on the same machine), not absolute numbers across runs. ' +
      `On ${os.cpus().length} cores, more instances do not mean more throughput: they share the same cores (the rows show how the load spreads and what each instance holds in memory).`,
    '',
    '## Targets: before -> now',
    '',
    `Before: ${before}. Now: this run. A missed target (BELOW, ABOVE) fails the run${s.enforce ? '' : ' (not this one: BENCH_ENFORCE=0)'}; "(info)" targets and the rest are shown only.`,
    '',
    renderRatiosMarkdown(ratios),
    '',
    '## Every target',
    '',
    renderSummaryMarkdown(rows),
    '',
    "Ratio: the target's req/s divided by the baseline's in this run ([PGlite] rows: the server on its embedded database, against the PostgreSQL baselines; information, no targets). " +
      'RSS idle -> peak: the VmRSS of each process just before the load (after the previous step settled), and the highest over the warm-up and the measured run ' +
      "(sampled every 250 ms from /proc); for the idle sockets, the server's VmRSS before and with every socket connected.",
    '',
    '## The whole printed report',
    '',
    '```text',
    printed,
    '```',
    '',
  ];
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, lines.join('\n'));
}

/** What the machine was doing just before the run (its 3 s sample, nothing of the bench running). */
function machineState(before: CpuUse | null | undefined): string {
  if (!before) return 'not sampled before the run';
  return before.machineBusyPct >= 20
    ? `busy with other work before the run (${formatNumber(before.machineBusyPct)}% of ${os.cpus().length * 100}% in the 3 s sample): the numbers include that contention`
    : `quiet before the run (${formatNumber(before.machineBusyPct)}% of ${os.cpus().length * 100}% busy in the 3 s sample)`;
}
