import { setTimeout as sleep } from 'node:timers/promises';
import { heapUsedMb } from './idle-sockets.js';
import { openHeapReader } from './inspector.js';
import { measure, type LoadSettings, type LoadTarget } from './load.js';
import { steadyRssKb } from './rss.js';
import type { ChildHandle } from './process.js';
import { formatNumber, renderTable } from './table.js';

/*
 * Does the server keep memory it no longer needs? The same load (`POST /api/notifications`: the
 * token, one insert, the socket push through Redis) in `rounds` rounds of `roundS` seconds on the
 * one server; after each, a pause, then three readings: the server's VmRSS from outside (/proc, the
 * median of 5 readings), the V8 heap in use from its /metrics (prom-client's default metrics, as
 * V8 left it), and the V8 heap in use after a full garbage collection made through the server's
 * inspector (lib/inspector.ts). The target is on the last: after the last round within 10% of after
 * the first. Only a collected heap is comparable from round to round: without one, a reading
 * catches the heap before or after a major collection (seven rounds of the same load read 213,
 * 245, 279, 262, 203, 198, 201 MB of VmRSS, the heap 104 -> 171 -> 87 MB), and VmRSS also holds
 * what V8 and the allocator keep reserved after a collection, shown, not judged.
 */

export interface MemoryRound {
  round: number;
  reqPerS: number;
  rssMb: number | null;
  heapUsedMb: number | null;
  /** The V8 heap in use after a full garbage collection (MB). */
  heapAfterGcMb: number | null;
}

export interface MemoryRoundsResult {
  /** VmRSS before the first round (MB). */
  rssBeforeMb: number | null;
  /** The V8 heap in use after a full garbage collection, before the first round (MB). */
  heapBeforeMb: number | null;
  rounds: MemoryRound[];
  /** The collected heap after the last round / after the first (the target: <= 1.10). */
  growth: number | null;
  /** The server's VmRSS after every part that used it, just before it stopped (MB). */
  rssAfterRunMb: number | null;
}

export interface MemoryRoundsOptions {
  target: LoadTarget;
  baseUrl: string;
  server: ChildHandle;
  settings: LoadSettings;
  rounds: number;
  roundS: number;
  log: (message: string) => void;
}

const mb = (kb: number | null) => (kb === null ? null : Math.round((kb / 1024) * 10) / 10);

export async function measureMemoryRounds(options: MemoryRoundsOptions): Promise<MemoryRoundsResult> {
  const { log, server } = options;
  log(`memory: ${options.rounds} rounds of ${options.roundS} s of ${options.target.name}, the server's VmRSS and collected heap after each ...`);
  const heap = await openHeapReader(server);
  if (!heap) log("  the server's inspector did not open: no collected heap");
  try {
    const rssBeforeMb = mb(await steadyRssKb(server.pid));
    const heapBeforeMb = (await heap?.heapAfterGcMb()) ?? null;
    const rounds: MemoryRound[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      const m = await measure(options.target, { ...options.settings, warmupS: 0, durationS: options.roundS });
      // Let the last requests finish and the pushes drain before reading.
      await sleep(2_000);
      const rssMb = mb(await steadyRssKb(server.pid));
      const heapUsed = await heapUsedMb(options.baseUrl);
      const r = { round, reqPerS: m.reqPerSecMean, rssMb, heapUsedMb: heapUsed, heapAfterGcMb: (await heap?.heapAfterGcMb()) ?? null };
      rounds.push(r);
      log(`  round ${round}: ${formatNumber(r.reqPerS, 1)} req/s; VmRSS ${r.rssMb ?? '-'} MB, V8 heap used ${mbText(r.heapUsedMb)} MB, after a full GC ${mbText(r.heapAfterGcMb)} MB`);
    }
    const first = rounds[0]?.heapAfterGcMb ?? null;
    const last = rounds.length > 1 ? (rounds.at(-1)?.heapAfterGcMb ?? null) : null;
    return { rssBeforeMb, heapBeforeMb, rounds, growth: first !== null && last !== null && first > 0 ? last / first : null, rssAfterRunMb: null };
  } finally {
    heap?.close();
  }
}

const mbText = (v: number | null) => (v === null ? '-' : v.toFixed(1));

export function renderMemoryRounds(r: MemoryRoundsResult): string {
  const cell = (v: number | null, digits = 0) => (v === null ? '-' : formatNumber(v, digits));
  return renderTable(
    [
      { title: 'memory: the same load in rounds' },
      { title: 'req/s', align: 'right' },
      { title: 'VmRSS (MB)', align: 'right' },
      { title: 'V8 heap used (MB, as V8 left it)', align: 'right' },
      { title: 'V8 heap used after a full GC (MB)', align: 'right' },
    ],
    [
      ['before round 1', '-', cell(r.rssBeforeMb), '-', cell(r.heapBeforeMb, 1)],
      ...r.rounds.map((x) => [`after round ${x.round}`, formatNumber(x.reqPerS, 1), cell(x.rssMb), cell(x.heapUsedMb, 1), cell(x.heapAfterGcMb, 1)]),
      ['after the last round / after round 1 (collected heap)', '-', '-', '-', r.growth === null ? '-' : r.growth.toFixed(2)],
      ['after the run (every part of the server, before it stopped)', '-', cell(r.rssAfterRunMb), '-', '-'],
    ],
  );
}
