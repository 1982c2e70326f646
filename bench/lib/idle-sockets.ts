import { setTimeout as sleep } from 'node:timers/promises';
import type { Socket } from 'socket.io-client';
import { request } from './http.js';
import { steadyRssKb } from './rss.js';
import { connectOne } from './socket-latency.js';
import type { BenchUser } from './users.js';

/*
 * Memory per idle socket: the resident size of a server before and after `users.length`
 * authenticated Socket.IO clients connect and stay idle, divided by their number. The server is
 * one of its own, started for this alone (so the garbage of the other parts is not in its heap),
 * and gets a few seconds to settle before each reading.
 */

export interface IdleSocketsResult {
  sockets: number;
  connectSeconds: number;
  /** The server's VmRSS (median of 5 readings over 1 s) before the first socket, and with all connected (MB). */
  rssBeforeMb: number | null;
  rssAfterMb: number | null;
  /** (after - before) / sockets, in kB. */
  perSocketKb: number | null;
  /** V8 heap in use before and after (MB), from the server's /metrics, when it answers. */
  heapUsedBeforeMb: number | null;
  heapUsedAfterMb: number | null;
  perSocketHeapKb: number | null;
  /** The server's VmRSS again 5 s after every socket closed (MB): what it gives back. */
  rssAfterCloseMb: number | null;
  /** This process's own growth while holding the clients (MB): the client side, for the record. */
  benchRssGrowthMb: number;
  /** Sockets closed by the server while idle. */
  disconnects: number;
}

export interface IdleSocketsOptions {
  baseUrl: string;
  serverPid: number;
  users: BenchUser[];
  connectBatch: number;
  /** Seconds to wait before each reading. */
  settleS: number;
  log: (message: string) => void;
}

const MB = 1024 * 1024;

/** `nodejs_heap_size_used_bytes` of the server's /metrics (prom-client's default metrics), in MB. */
export async function heapUsedMb(baseUrl: string): Promise<number | null> {
  try {
    const answer = await request(`${baseUrl}/metrics`);
    if (answer.status !== 200) return null;
    const match = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})?\s+([\d.e+]+)/m.exec(answer.text);
    return match ? Number(match[1]) / MB : null;
  } catch {
    return null;
  }
}

const round1 = (value: number) => Math.round(value * 10) / 10;

export async function measureIdleSockets(options: IdleSocketsOptions): Promise<IdleSocketsResult> {
  const { users, log } = options;
  const settleMs = options.settleS * 1000;
  await sleep(settleMs);
  const before = await steadyRssKb(options.serverPid);
  const heapBefore = await heapUsedMb(options.baseUrl);
  const benchBefore = process.memoryUsage().rss;

  const sockets: Socket[] = [];
  let disconnects = 0;
  let closing = false;
  const started = performance.now();
  try {
    for (let i = 0; i < users.length; i += options.connectBatch) {
      const batch = users.slice(i, i + options.connectBatch);
      const settled = await Promise.allSettled(batch.map((user) => connectOne(options.baseUrl, user, 30_000)));
      for (const s of settled) {
        if (s.status === 'fulfilled') {
          sockets.push(s.value);
          s.value.on('disconnect', () => {
            if (!closing) disconnects++;
          });
        }
      }
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw new Error(`idle sockets: a socket did not connect (${sockets.length} connected so far): ${(failed.reason as Error).message}`);
      if (sockets.length % 1000 === 0) log(`  ${sockets.length} sockets connected`);
    }
    const connectSeconds = (performance.now() - started) / 1000;
    log(`  ${sockets.length} sockets connected in ${connectSeconds.toFixed(1)} s; waiting ${options.settleS} s before reading the server's memory`);
    await sleep(settleMs);
    const after = await steadyRssKb(options.serverPid);
    const heapAfter = await heapUsedMb(options.baseUrl);
    const benchRssGrowthMb = (process.memoryUsage().rss - benchBefore) / MB;

    closing = true;
    for (const socket of sockets) socket.disconnect();
    await sleep(settleMs);
    const afterClose = await steadyRssKb(options.serverPid);
    const n = sockets.length;
    return {
      sockets: n,
      connectSeconds,
      rssBeforeMb: before === null ? null : round1(before / 1024),
      rssAfterMb: after === null ? null : round1(after / 1024),
      perSocketKb: before === null || after === null ? null : round1((after - before) / n),
      heapUsedBeforeMb: heapBefore === null ? null : round1(heapBefore),
      heapUsedAfterMb: heapAfter === null ? null : round1(heapAfter),
      perSocketHeapKb: heapBefore === null || heapAfter === null ? null : round1(((heapAfter - heapBefore) * 1024) / n),
      rssAfterCloseMb: afterClose === null ? null : round1(afterClose / 1024),
      benchRssGrowthMb: round1(benchRssGrowthMb),
      disconnects,
    };
  } finally {
    closing = true;
    for (const socket of sockets) socket.disconnect();
  }
}
