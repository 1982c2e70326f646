import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { chatASignedHeaders, type ChatAEvent } from './chat-a.js';
import { isRecord, postRaw, type RawAnswer } from './http.js';
import { percentiles, type Percentiles } from './socket-latency.js';

/*
 * Delivers signed chat-a events to a webhook as the vendor would: each attempt signed when it is
 * written, first attempts at a fixed rate or as fast as they are answered (a bounded number in
 * flight), and, when told, a refused event retried as spec 7.1 asks: a 503 or a 429 after its
 * Retry-After plus a random jitter, a transport error after a second. Every answer is checked and
 * counted per event, so that "accepted once" can be checked against the database afterwards.
 */

export interface DeliveryOptions {
  /** The webhook URL; several (the instances of a cluster): attempts go round-robin over them. */
  url: URL | URL[];
  secret: string;
  events: ChatAEvent[];
  /** First attempts per second; 0: as fast as they are answered, `maxInFlight` at a time. */
  ratePerS: number;
  maxInFlight: number;
  /** Retry 503, 429 and transport errors (spec 7.1); otherwise any of them is final. */
  retry: boolean;
  /** The random jitter added to a Retry-After, at most (ms). */
  jitterMs: number;
  timeoutMs: number;
  /** No retry is scheduled after this long (ms since the first attempt): the event is given up. */
  giveUpAfterMs: number;
  /** Sees each answer as it comes (ms since the first attempt), before any retry is scheduled. */
  onAnswer?: (answer: AttemptAnswer) => void;
}

export interface AttemptAnswer {
  eventIndex: number;
  /** HTTP status, or "error: <message>". */
  status: string;
  atMs: number;
}

/** The 503s of spec 7.1 as they came: every one must carry Retry-After and the body of the spec. */
export interface BackpressureAnswers {
  refusals: number;
  withoutRetryAfter: number;
  /** Bodies other than exactly { statusCode: 503, code: 'backpressure', error: 'ServiceUnavailable', message }. */
  badBodies: number;
  firstBadBody: string | null;
  /** The distinct Retry-After values seen (seconds). */
  retryAfterS: number[];
  /** When the first one came (ms since the first attempt), and after how many acceptances. */
  firstAtMs: number | null;
  acceptedBeforeFirst: number | null;
}

export interface DeliveryResult {
  events: number;
  /** Requests written, retries included, and their answers by status ("error: ..." for transport errors). */
  attempts: number;
  statusCounts: Record<string, number>;
  /** Events answered 200 { ok: true } (without `duplicate`): accepted, at least once. */
  accepted: number;
  /** Events answered 200 { ok: true } without `duplicate` more than once (the server kept them twice). */
  acceptedTwice: number;
  /** 200 { ok: true, duplicate: true } answers: a retry of an event the server had kept already. */
  duplicateAnswers: number;
  /** Events never accepted (no 200 at all): a final refusal, or given up. */
  notAccepted: number;
  /** 200 answers whose body is not { ok: true }. */
  badAcceptBodies: number;
  /** Events retried at least once, and the most attempts one event took. */
  retriedEvents: number;
  maxAttempts: number;
  backpressure: BackpressureAnswers;
  /** 429 answers (the chat-a throttle). */
  throttled: number;
  /** From the first request written to the last acceptance, seconds; accepted / that. */
  acceptSpanS: number;
  acceptedPerS: number;
  /** From the first request written to the last answer, seconds. */
  spanS: number;
  /** Round trip of every attempt, ms. */
  latencyMs: Percentiles;
  /** How late first attempts were written against their schedule (fixed rate only), ms. */
  sendLagMs: Percentiles;
  /** The first few answers that were neither 200 nor a retried refusal. */
  samples: string[];
  /** Keys of the events accepted (to count them in SQL). */
  acceptedKeys: string[];
  /** Start of the run (performance.now()), for timings relative to it. */
  startedAtMs: number;
}

interface EventState {
  attempts: number;
  acceptances: number;
  duplicates: number;
  settled: boolean;
}

const BACKPRESSURE_KEYS = ['code', 'error', 'message', 'statusCode'];

function isBackpressureBody(text: string): boolean {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  return (
    isRecord(body) &&
    Object.keys(body).sort().join() === BACKPRESSURE_KEYS.join() &&
    body.statusCode === 503 &&
    body.code === 'backpressure' &&
    body.error === 'ServiceUnavailable' &&
    typeof body.message === 'string'
  );
}

function acceptance(text: string): 'accepted' | 'duplicate' | 'bad' {
  try {
    const body: unknown = JSON.parse(text);
    if (!isRecord(body) || body.ok !== true) return 'bad';
    return body.duplicate === true ? 'duplicate' : 'accepted';
  } catch {
    return 'bad';
  }
}

/** Retry-After in seconds (delta-seconds only, as the server sends), or null. */
function retryAfterOf(answer: RawAnswer): number | null {
  const raw: unknown = answer.headers['retry-after'];
  const value: unknown = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : null;
}

export async function deliverEvents(options: DeliveryOptions): Promise<DeliveryResult> {
  const { events } = options;
  const urls = Array.isArray(options.url) ? options.url : [options.url];
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxInFlight });
  const states: EventState[] = events.map(() => ({ attempts: 0, acceptances: 0, duplicates: 0, settled: false }));
  const statusCounts: Record<string, number> = {};
  const latencies: number[] = [];
  const sendLags: number[] = [];
  const samples: string[] = [];
  const retryAfters = new Set<number>();
  const backpressure: BackpressureAnswers = {
    refusals: 0,
    withoutRetryAfter: 0,
    badBodies: 0,
    firstBadBody: null,
    retryAfterS: [],
    firstAtMs: null,
    acceptedBeforeFirst: null,
  };
  let attempts = 0;
  let accepted = 0;
  let duplicateAnswers = 0;
  let badAcceptBodies = 0;
  let throttled = 0;
  let lastAcceptMs = 0;
  let lastAnswerMs = 0;
  const intervalMs = options.ratePerS > 0 ? 1000 / options.ratePerS : 0;
  const start = performance.now();
  const since = () => performance.now() - start;

  await new Promise<void>((resolve) => {
    const retryReady: number[] = [];
    let nextFirst = 0;
    let inFlight = 0;
    let pendingRetries = 0;
    let timer: NodeJS.Timeout | undefined;

    const settle = (i: number) => {
      states[i]!.settled = true;
    };
    const scheduleRetry = (i: number, delayMs: number, why: string) => {
      if (since() + delayMs > options.giveUpAfterMs) {
        if (samples.length < 5) samples.push(`gave up on ${events[i]!.key} after ${states[i]!.attempts} attempts (last: ${why})`);
        settle(i);
        return;
      }
      pendingRetries++;
      setTimeout(() => {
        pendingRetries--;
        retryReady.push(i);
        pump();
      }, delayMs);
    };
    const onAnswer = (i: number, sentAt: number, answer: RawAnswer | Error) => {
      const now = performance.now();
      lastAnswerMs = now - start;
      latencies.push(now - sentAt);
      const status = answer instanceof Error ? `error: ${answer.message}` : String(answer.status);
      statusCounts[status] = (statusCounts[status] ?? 0) + 1;
      options.onAnswer?.({ eventIndex: i, status, atMs: lastAnswerMs });
      const state = states[i]!;
      const jitter = () => Math.random() * options.jitterMs;
      if (answer instanceof Error) {
        if (options.retry) scheduleRetry(i, 1000 + jitter(), status);
        else settle(i);
        return;
      }
      if (answer.status === 200) {
        const kind = acceptance(answer.text);
        if (kind === 'bad') {
          badAcceptBodies++;
          if (samples.length < 5) samples.push(`200 with ${answer.text.slice(0, 200)}`);
        } else if (kind === 'duplicate') {
          duplicateAnswers++;
          state.duplicates++;
        } else {
          state.acceptances++;
          if (state.acceptances === 1) accepted++;
          lastAcceptMs = lastAnswerMs;
        }
        settle(i);
        return;
      }
      const retryAfter = retryAfterOf(answer);
      if (answer.status === 503) {
        backpressure.refusals++;
        if (backpressure.firstAtMs === null) {
          backpressure.firstAtMs = lastAnswerMs;
          backpressure.acceptedBeforeFirst = accepted;
        }
        if (retryAfter === null) backpressure.withoutRetryAfter++;
        else retryAfters.add(retryAfter);
        if (!isBackpressureBody(answer.text)) {
          backpressure.badBodies++;
          backpressure.firstBadBody ??= answer.text.slice(0, 300);
        }
      } else if (answer.status === 429) {
        throttled++;
      } else if (samples.length < 5) {
        samples.push(`${answer.status} ${answer.text.slice(0, 200)}`);
      }
      if (options.retry && (answer.status === 503 || answer.status === 429)) scheduleRetry(i, (retryAfter ?? 1) * 1000 + jitter(), status);
      else settle(i);
    };
    const issue = (i: number) => {
      const event = events[i]!;
      states[i]!.attempts++;
      attempts++;
      inFlight++;
      const sentAt = performance.now();
      postRaw(agent, urls[attempts % urls.length]!, chatASignedHeaders(options.secret, event.raw), event.raw, options.timeoutMs)
        .then(
          (answer) => onAnswer(i, sentAt, answer),
          (err: Error) => onAnswer(i, sentAt, err),
        )
        .finally(() => {
          inFlight--;
          pump();
        });
    };
    const pump = () => {
      while (inFlight < options.maxInFlight) {
        const retry = retryReady.shift();
        if (retry !== undefined) {
          issue(retry);
          continue;
        }
        if (nextFirst >= events.length) break;
        const scheduledAt = start + nextFirst * intervalMs;
        const now = performance.now();
        if (intervalMs > 0 && scheduledAt > now) break;
        if (intervalMs > 0) sendLags.push(now - scheduledAt);
        issue(nextFirst++);
      }
      if (nextFirst >= events.length && inFlight === 0 && pendingRetries === 0 && retryReady.length === 0) {
        if (timer) clearTimeout(timer);
        resolve();
        return;
      }
      if (intervalMs > 0 && nextFirst < events.length && inFlight < options.maxInFlight) {
        if (timer) clearTimeout(timer);
        timer = setTimeout(pump, Math.max(0, start + nextFirst * intervalMs - performance.now()));
      }
    };
    pump();
  });
  agent.destroy();

  backpressure.retryAfterS = [...retryAfters].sort((a, b) => a - b);
  const acceptedKeys = events.filter((_, i) => states[i]!.acceptances > 0).map((e) => e.key);
  const acceptSpanS = lastAcceptMs / 1000;
  return {
    events: events.length,
    attempts,
    statusCounts,
    accepted,
    acceptedTwice: states.filter((s) => s.acceptances > 1).length,
    duplicateAnswers,
    notAccepted: states.filter((s) => s.acceptances === 0 && s.duplicates === 0).length,
    badAcceptBodies,
    retriedEvents: states.filter((s) => s.attempts > 1).length,
    maxAttempts: Math.max(0, ...states.map((s) => s.attempts)),
    backpressure,
    throttled,
    acceptSpanS,
    acceptedPerS: acceptSpanS > 0 ? accepted / acceptSpanS : 0,
    spanS: lastAnswerMs / 1000,
    latencyMs: percentiles(latencies),
    sendLagMs: percentiles(sendLags),
    samples,
    acceptedKeys,
    startedAtMs: start,
  };
}
