import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LoadSettings, Measurement } from './load.js';
import { formatNumber, renderTable } from './table.js';

/** One measured run of one target, in one round. */
export type RoundMeasurement = Measurement & { round: number };

/** All rounds of one target; with one round, the medians are that round's values. */
export interface TargetSummary {
  name: string;
  rounds: number;
  ok: boolean;
  reqPerSecMedian: number;
  latencyP99MsMedian: number;
  latencyP50MsMedian: number;
  /** Lowest and highest req/s over the rounds, to show the noise. */
  reqPerSecMin: number;
  reqPerSecMax: number;
}

export interface RatioSpec {
  name: string;
  numerator: string;
  denominator: string;
  target: number;
}

export interface RatioResult extends RatioSpec {
  value: number | null;
  verdict: 'PASS' | 'BELOW' | 'n/a';
}

export interface Report {
  settings: LoadSettings & { rounds: number };
  database: string | null;
  measurements: RoundMeasurement[];
  warnings: string[];
  error: string | undefined;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

const isClean = (m: Measurement) => m.non2xx === 0 && m.errors === 0 && m.mismatches === 0 && m.count2xx > 0;

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
      reqPerSecMedian: median(rps),
      latencyP99MsMedian: median(runs.map((m) => m.latencyP99Ms)),
      latencyP50MsMedian: median(runs.map((m) => m.latencyP50Ms)),
      reqPerSecMin: Math.min(...rps),
      reqPerSecMax: Math.max(...rps),
    };
  });
}

/** Ratios of median req/s; n/a when either side is missing or had a failed run. */
export function computeRatios(specs: RatioSpec[], summaries: TargetSummary[]): RatioResult[] {
  const rps = (name: string) => {
    const s = summaries.find((x) => x.name === name);
    return s && s.ok ? s.reqPerSecMedian : undefined;
  };
  return specs.map((spec) => {
    const num = rps(spec.numerator);
    const den = rps(spec.denominator);
    if (num === undefined || den === undefined || den <= 0) return { ...spec, value: null, verdict: 'n/a' };
    const value = num / den;
    return { ...spec, value, verdict: value >= spec.target ? 'PASS' : 'BELOW' };
  });
}

export function renderReport(report: Report, summaries: TargetSummary[], ratios: RatioResult[]): string {
  const multi = report.settings.rounds > 1;
  const failed = (name: string) => {
    const bad = report.measurements.filter((m) => m.name === name && !isClean(m));
    return bad
      .map((m) => `FAILED${multi ? ` (round ${m.round})` : ''} ${JSON.stringify(m.statusCodes)} errors ${m.errors}`)
      .join('; ');
  };
  const targetTable = renderTable(
    [
      { title: 'target' },
      { title: multi ? 'req/s (median of means)' : 'req/s (mean)', align: 'right' },
      ...(multi ? [{ title: 'req/s min-max', align: 'right' as const }] : []),
      { title: 'p99 (ms)', align: 'right' },
      { title: 'p50 (ms)', align: 'right' },
      { title: 'answers' },
    ],
    summaries.map((s) => [
      s.name,
      formatNumber(s.reqPerSecMedian, 1),
      ...(multi ? [`${formatNumber(s.reqPerSecMin)}-${formatNumber(s.reqPerSecMax)}`] : []),
      formatNumber(s.latencyP99MsMedian),
      formatNumber(s.latencyP50MsMedian),
      s.ok ? 'all 2xx' : failed(s.name),
    ]),
  );
  const ratioTable = renderTable(
    [{ title: 'ratio (req/s)' }, { title: 'value', align: 'right' }, { title: 'target', align: 'right' }, { title: 'verdict' }],
    ratios.map((r) => [r.name, r.value === null ? '-' : r.value.toFixed(2), `>= ${r.target.toFixed(2)}`, r.verdict]),
  );
  const s = report.settings;
  const header =
    `${s.connections} connections, pipelining ${s.pipelining}, ${s.warmupS} s warm-up + ${s.durationS} s measured` +
    `${multi ? `, ${s.rounds} rounds` : ''}; node ${process.version}, ${os.cpus().length} cpus`;
  return [header, '', targetTable, '', ratioTable].join('\n');
}

export async function writeReport(
  file: string,
  report: Report,
  summaries: TargetSummary[],
  ratios: RatioResult[],
): Promise<void> {
  const doc = {
    ok: report.error === undefined,
    error: report.error ?? null,
    finishedAt: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: os.cpus().length,
    settings: report.settings,
    database: report.database,
    summary: summaries,
    ratios,
    warnings: report.warnings,
    runs: report.measurements,
  };
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(doc, null, 2)}\n`);
}
