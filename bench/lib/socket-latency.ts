import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { io, type Socket } from 'socket.io-client';
import { startCpuSample, type CpuUse } from './cpu.js';
import { postRaw, type RawAnswer } from './http.js';
import type { BenchUser } from './users.js';

/*
 * Create-to-receive latency over Socket.IO: `sockets` clients (one per user) stay connected to the
 * namespace `/notifications`, while this process POSTs notifications at a steady rate, round-robin
 * over those users, and times each one from just before its POST is written to the moment its
 * `notification:new` arrives (one process, one monotonic clock: performance.now()).
 */

export interface SocketLatencyOptions {
  /** The server origin, e.g. http://127.0.0.1:1234. */
  baseUrl: string;
  /** One socket per user; notifications go round-robin over them. */
  users: BenchUser[];
  /** Bearer token of an internal role allowed to POST /api/notifications. */
  senderToken: string;
  ratePerS: number;
  durationS: number;
  /** Seconds sent at the same rate before the measured part (checked for loss, not timed). */
  warmupS: number;
  maxInFlight: number;
  connectBatch: number;
  /** How long to wait for the last events after the last answer. */
  graceMs: number;
  /** The server's pid, to report its CPU use (Linux /proc only). */
  serverPid?: number;
  log: (message: string) => void;
}

export interface Percentiles {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface PhaseCounts {
  /** POSTs written. */
  sent: number;
  /** POSTs answered 201. */
  created: number;
  /** POSTs answered otherwise, or failed (status code or "error: ..." -> count). */
  failedPosts: Record<string, number>;
  /** Distinct notifications (of the 201s) whose event arrived. */
  received: number;
  /** Answered 201, never received within the grace period. */
  lost: number;
  /** Notifications received more than once (count of extra deliveries). */
  duplicated: number;
}

export interface SocketLatencyResult {
  sockets: number;
  connectSeconds: number;
  connectMs: Percentiles;
  targetRatePerS: number;
  durationS: number;
  warmupS: number;
  maxInFlight: number;
  /** Measured part only. */
  measured: PhaseCounts;
  warmup: PhaseCounts;
  /** Create-to-receive, measured part, ms. */
  latencyMs: Percentiles;
  /** POST round trip as this process saw it, measured part, ms. */
  postMs: Percentiles;
  /** How late each POST was written against its schedule (in-flight bound, timers, a busy loop), ms. */
  sendLagMs: Percentiles;
  achievedRatePerS: number;
  /** Events whose seq belongs to this run but to no POST that was written. */
  unexpected: number;
  /** Events that arrived on a socket of another user than their recipient. */
  misrouted: number;
  /** `notification:new` events without this run's marker. */
  foreign: number;
  disconnects: { userId: string; reason: string; atS: number }[];
  /** CPU while sending: this process, the server (Linux only, else null), the whole machine; % of one core. */
  cpu: Omit<CpuUse, 'topProcesses'>;
  /** What used the most CPU while sending (see CpuUse). */
  topProcesses: CpuUse['topProcesses'];
  /**
   * This process's event-loop delay while sending (beyond the sampling interval), ms: a high p99
   * means the bench itself adds latency to what it measures.
   */
  benchEventLoopDelayMs: { p50: number; p99: number; max: number };
}

interface SendRecord {
  seq: number;
  userId: string;
  warmup: boolean;
  scheduledAt: number;
  sentAt: number;
  answeredAt?: number;
  status?: string;
  receivedAt?: number;
  receptions: number;
}

export function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { count: 0, mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
  let sum = 0;
  for (const v of sorted) sum += v;
  return { count: sorted.length, mean: sum / sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 };
}

interface NotificationEvent {
  userId?: unknown;
  meta?: { seq?: unknown; run?: unknown } | null;
}

/** Opens one socket and resolves once it is connected (authenticated and in its rooms). */
export function connectOne(baseUrl: string, user: Pick<BenchUser, 'id' | 'token'>, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = io(`${baseUrl}/notifications`, {
      path: '/socket.io/',
      transports: ['websocket'],
      auth: { token: user.token },
      forceNew: true,
      reconnection: false,
      timeout: timeoutMs,
    });
    const fail = (err: Error) => {
      socket.off('connect', ok);
      socket.disconnect();
      const data = (err as Error & { data?: unknown }).data;
      reject(new Error(`socket of user ${user.id} did not connect: ${err.message}${data ? ` ${JSON.stringify(data)}` : ''}`));
    };
    const ok = () => {
      socket.off('connect_error', fail);
      resolve(socket);
    };
    socket.once('connect', ok);
    socket.once('connect_error', fail);
  });
}

function postJson(agent: http.Agent, url: URL, token: string, body: string, timeoutMs: number): Promise<RawAnswer> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' };
  return postRaw(agent, url, headers, body, timeoutMs);
}

export async function measureSocketLatency(options: SocketLatencyOptions): Promise<SocketLatencyResult> {
  const { users, log } = options;
  const runMarker = randomBytes(4).toString('hex');
  const bySeq = new Map<number, SendRecord>();
  const socketsByUser = new Map<string, Socket>();
  const disconnects: SocketLatencyResult['disconnects'] = [];
  let unexpected = 0;
  let misrouted = 0;
  let foreign = 0;
  let closing = false;
  let sendStart = 0;

  const onEvent = (socketUserId: string, event: NotificationEvent) => {
    const now = performance.now();
    const seq = event?.meta?.seq;
    if (event?.meta?.run !== runMarker || typeof seq !== 'number') {
      foreign++;
      return;
    }
    const record = bySeq.get(seq);
    if (!record) {
      unexpected++;
      return;
    }
    if (record.userId !== socketUserId || event.userId !== socketUserId) misrouted++;
    record.receptions++;
    if (record.receivedAt === undefined) record.receivedAt = now;
  };

  // 1. Connect, in batches, so the server is not flooded with handshakes.
  const connectTimes: number[] = [];
  const connectStarted = performance.now();
  try {
    for (let i = 0; i < users.length; i += options.connectBatch) {
      const batch = users.slice(i, i + options.connectBatch);
      const settled = await Promise.allSettled(
        batch.map(async (user) => {
          const t = performance.now();
          const socket = await connectOne(options.baseUrl, user, 20_000);
          connectTimes.push(performance.now() - t);
          socketsByUser.set(user.id, socket);
          socket.on('notification:new', (event: NotificationEvent) => onEvent(user.id, event));
          socket.on('disconnect', (reason) => {
            if (!closing) disconnects.push({ userId: user.id, reason, atS: sendStart ? (performance.now() - sendStart) / 1000 : 0 });
          });
        }),
      );
      const failed = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed.length > 0) {
        throw new Error(`${failed.length} of a batch of ${batch.length} sockets did not connect (${socketsByUser.size} connected so far); ` + `first: ${(failed[0]?.reason as Error)?.message}`);
      }
    }
  } catch (err) {
    closing = true;
    for (const socket of socketsByUser.values()) socket.disconnect();
    throw err;
  }
  const connectSeconds = (performance.now() - connectStarted) / 1000;
  log(`  ${socketsByUser.size} sockets connected in ${connectSeconds.toFixed(1)} s`);

  // 2. Send at a steady rate, round-robin over the users, with a bounded number in flight.
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxInFlight });
  const url = new URL('/api/notifications', options.baseUrl);
  const intervalMs = 1000 / options.ratePerS;
  const warmupCount = Math.round(options.warmupS * options.ratePerS);
  const total = warmupCount + Math.round(options.durationS * options.ratePerS);
  let next = 0;
  let inFlight = 0;
  let lastAnswerAt = 0;
  let measuredFirstSentAt = 0;
  let measuredLastSentAt = 0;
  const postErrors: string[] = [];

  // The histogram records the time between samples: the sampling interval is taken off below.
  const eldResolutionMs = 5;
  const eld = monitorEventLoopDelay({ resolution: eldResolutionMs });
  const cpuSample = startCpuSample(options.serverPid);
  sendStart = performance.now();
  eld.enable();

  await new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const issue = (seq: number) => {
      const user = users[seq % users.length]!;
      const scheduledAt = sendStart + seq * intervalMs;
      const body = JSON.stringify({
        userId: user.id,
        type: 'bench.latency',
        title: 'Bench latency probe',
        message: `Bench latency probe ${seq}`,
        meta: { seq, run: runMarker, sentAtMs: Date.now() },
      });
      const record: SendRecord = { seq, userId: user.id, warmup: seq < warmupCount, scheduledAt, sentAt: 0, receptions: 0 };
      bySeq.set(seq, record);
      inFlight++;
      record.sentAt = performance.now();
      if (!record.warmup) {
        if (measuredFirstSentAt === 0) measuredFirstSentAt = record.sentAt;
        measuredLastSentAt = record.sentAt;
      }
      postJson(agent, url, options.senderToken, body, 10_000)
        .then(
          (answer) => {
            record.answeredAt = performance.now();
            record.status = String(answer.status);
            if (answer.status !== 201 && postErrors.length < 5) postErrors.push(`${answer.status} ${answer.text.slice(0, 200)}`);
          },
          (err: Error) => {
            record.answeredAt = performance.now();
            record.status = `error: ${err.message}`;
            if (postErrors.length < 5) postErrors.push(err.message);
          },
        )
        .finally(() => {
          inFlight--;
          lastAnswerAt = performance.now();
          pump();
        });
    };
    const pump = () => {
      const now = performance.now();
      while (next < total && inFlight < options.maxInFlight && sendStart + next * intervalMs <= now) issue(next++);
      if (next >= total) {
        if (inFlight === 0) {
          if (timer) clearTimeout(timer);
          resolve();
        }
        return;
      }
      if (inFlight >= options.maxInFlight) return; // an answer pumps again
      if (timer) clearTimeout(timer);
      timer = setTimeout(pump, Math.max(0, sendStart + next * intervalMs - performance.now()));
    };
    pump();
  });

  eld.disable();
  const { topProcesses, ...cpu } = cpuSample.stop();

  // 3. Wait for the last events: until every 201 has arrived, or the grace period after the last answer.
  const created = () => [...bySeq.values()].filter((r) => r.status === '201');
  const waitStart = performance.now();
  while (performance.now() - Math.max(lastAnswerAt, waitStart) < options.graceMs) {
    if (created().every((r) => r.receivedAt !== undefined)) break;
    await sleep(50);
  }
  // A little longer, so that a late duplicate of an already received event is still seen.
  await sleep(250);

  closing = true;
  for (const socket of socketsByUser.values()) socket.disconnect();
  agent.destroy();

  const phase = (warmup: boolean): PhaseCounts => {
    const records = [...bySeq.values()].filter((r) => r.warmup === warmup);
    const failedPosts: Record<string, number> = {};
    for (const r of records) if (r.status !== '201') failedPosts[r.status ?? 'no answer'] = (failedPosts[r.status ?? 'no answer'] ?? 0) + 1;
    const ok = records.filter((r) => r.status === '201');
    return {
      sent: records.length,
      created: ok.length,
      failedPosts,
      received: ok.filter((r) => r.receivedAt !== undefined).length,
      lost: ok.filter((r) => r.receivedAt === undefined).length,
      duplicated: records.reduce((n, r) => n + Math.max(0, r.receptions - 1), 0),
    };
  };
  const measuredRecords = [...bySeq.values()].filter((r) => !r.warmup);
  const timed = measuredRecords.filter((r) => r.status === '201' && r.receivedAt !== undefined);
  const measuredSpanS = (measuredLastSentAt - measuredFirstSentAt) / 1000;

  if (postErrors.length > 0) log(`  failed POSTs, first answers: ${postErrors.join(' | ')}`);

  return {
    sockets: socketsByUser.size,
    connectSeconds,
    connectMs: percentiles(connectTimes),
    targetRatePerS: options.ratePerS,
    durationS: options.durationS,
    warmupS: options.warmupS,
    maxInFlight: options.maxInFlight,
    measured: phase(false),
    warmup: phase(true),
    latencyMs: percentiles(timed.map((r) => r.receivedAt! - r.sentAt)),
    postMs: percentiles(measuredRecords.filter((r) => r.answeredAt !== undefined).map((r) => r.answeredAt! - r.sentAt)),
    sendLagMs: percentiles(measuredRecords.map((r) => r.sentAt - r.scheduledAt)),
    achievedRatePerS: measuredSpanS > 0 ? (measuredRecords.length - 1) / measuredSpanS : 0,
    unexpected,
    misrouted,
    foreign,
    disconnects,
    cpu,
    topProcesses,
    benchEventLoopDelayMs: {
      p50: Math.max(0, eld.percentile(50) / 1e6 - eldResolutionMs),
      p99: Math.max(0, eld.percentile(99) / 1e6 - eldResolutionMs),
      max: Math.max(0, eld.max / 1e6 - eldResolutionMs),
    },
  };
}
