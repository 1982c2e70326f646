import { setTimeout as sleep } from 'node:timers/promises';
import { heapUsedMb } from './idle-sockets.js';
import { measure, type LoadSettings, type LoadTarget } from './load.js';
import { steadyRssKb } from './rss.js';
import { formatNumber, renderTable } from './table.js';

/*
 * Does the server keep memory it no longer needs? The same load (`POST /api/notifications`: the
 * token, one insert, the socket push through Redis) in `rounds` rounds of `roundS` seconds on the
 * one server; after each, a pause and the server's VmRSS read from outside (/proc, the median of 5
 * readings) and the V8 heap in use from its /metrics (prom-client's default metrics, no forced
 * GC: shown, not judged). The target: the floor of VmRSS over the later half of the rounds within
 * 10% of its floor over the first half. A floor, not the last reading: with no forced GC, one
 * reading catches the heap before or after a major collection (seven rounds of the same load
 * read 213, 245, 279, 262, 203, 198, 201 MB, the heap 104 -> 171 -> 87 MB); a leak raises the
 * floor, a late collection only one reading.
 */

export interface MemoryRound {
  round: number;
  reqPerS: number;
  rssMb: number | null;
  heapUsedMb: number | null;
}

export interface MemoryRoundsResult {
  /** VmRSS before the first round (MB). */
  rssBeforeMb: number | null;
  rounds: MemoryRound[];
  /** The lowest VmRSS of the later half of the rounds / the lowest of the first half (the target: <= 1.10). */
  growth: number | null;
  /** The server's VmRSS after every part that used it, just before it stopped (MB). */
  rssAfterRunMb: number | null;
}

export interface MemoryRoundsOptions {
  target: LoadTarget;
  baseUrl: string;
  serverPid: number;
  settings: LoadSettings;
  rounds: number;
  roundS: number;
  log: (message: string) => void;
}

const mb = (kb: number | null) => (kb === null ? null : Math.round((kb / 1024) * 10) / 10);

export async function measureMemoryRounds(options: MemoryRoundsOptions): Promise<MemoryRoundsResult> {
  const { log } = options;
  log(`memory: ${options.rounds} rounds of ${options.roundS} s of ${options.target.name}, the server's VmRSS after each ...`);
  const rssBeforeMb = mb(await steadyRssKb(options.serverPid));
  const rounds: MemoryRound[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    const m = await measure(options.target, { ...options.settings, warmupS: 0, durationS: options.roundS });
    // Let the last requests finish and the pushes drain before reading.
    await sleep(2_000);
    const r = { round, reqPerS: m.reqPerSecMean, rssMb: mb(await steadyRssKb(options.serverPid)), heapUsedMb: await heapUsedMb(options.baseUrl) };
    rounds.push(r);
    log(`  round ${round}: ${formatNumber(r.reqPerS, 1)} req/s; VmRSS ${r.rssMb ?? '-'} MB, V8 heap used ${r.heapUsedMb === null ? '-' : r.heapUsedMb.toFixed(1)} MB`);
  }
  const half = Math.floor(rounds.length / 2);
  const first = floor(rounds.slice(0, half));
  const later = floor(rounds.slice(rounds.length - half));
  return { rssBeforeMb, rounds, growth: half > 0 && first !== null && later !== null && first > 0 ? later / first : null, rssAfterRunMb: null };
}

/** The lowest VmRSS of some rounds; null when one was not read. */
function floor(rounds: readonly MemoryRound[]): number | null {
  const values = rounds.map((r) => r.rssMb);
  return values.length === 0 || values.some((v) => v === null) ? null : Math.min(...(values as number[]));
}

export function renderMemoryRounds(r: MemoryRoundsResult): string {
  const cell = (v: number | null, digits = 0) => (v === null ? '-' : formatNumber(v, digits));
  return renderTable(
    [{ title: 'memory: the same load in rounds' }, { title: 'req/s', align: 'right' }, { title: 'VmRSS (MB)', align: 'right' }, { title: 'V8 heap used (MB, no forced GC)', align: 'right' }],
    [
      ['before round 1', '-', cell(r.rssBeforeMb), '-'],
      ...r.rounds.map((x) => [`after round ${x.round}`, formatNumber(x.reqPerS, 1), cell(x.rssMb), cell(x.heapUsedMb, 1)]),
      ['VmRSS after the last round / after round 1', '-', r.growth === null ? '-' : r.growth.toFixed(2), '-'],
      ['after the run (every part of the server, before it stopped)', '-', cell(r.rssAfterRunMb), '-'],
    ],
  );
}
