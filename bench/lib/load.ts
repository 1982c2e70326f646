import { createRequire } from 'node:module';

/*
 * autocannon ships no type declarations (and the project has no @types for it): the few parts of
 * its programmatic API used here are typed locally and the CommonJS module is loaded with require,
 * so no ambient `declare module` leaks into the rest of the project.
 */

interface AutocannonRequest {
  method?: 'GET' | 'POST';
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

interface AutocannonOptions {
  /** Several URLs: connection i goes to url[i % n] for the whole run. */
  url: string | string[];
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Each connection goes through these in turn; `setupRequest` builds a request just before it is sent. */
  requests?: Array<AutocannonRequest & { setupRequest?: (request: AutocannonRequest) => AutocannonRequest }>;
  /** False counts the answer as a mismatch. */
  verifyBody?: (body: string) => boolean;
  connections: number;
  pipelining: number;
  /** Seconds. */
  duration: number;
  /** Seconds a request may take before it counts as a timeout (and an error). */
  timeout: number;
  title?: string;
}

interface AutocannonHistogram {
  mean: number;
  stddev: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p97_5: number;
  p99: number;
  p99_9: number;
}

interface AutocannonResult {
  url: string;
  duration: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  non2xx: number;
  resets: number;
  '1xx': number;
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '5xx': number;
  statusCodeStats: Record<string, { count: number }>;
  /** Milliseconds. */
  latency: AutocannonHistogram & { totalCount: number };
  /** Requests completed per sample interval (one second by default). */
  requests: AutocannonHistogram & { total: number; sent: number };
  throughput: AutocannonHistogram & { total: number };
}

type Autocannon = (options: AutocannonOptions) => PromiseLike<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadSettings {
  connections: number;
  pipelining: number;
  durationS: number;
  warmupS: number;
  timeoutS: number;
}

export interface LoadTarget {
  /** Short name used in the table and the JSON file. */
  name: string;
  /**
   * The origin (and path); several: one autocannon run spreads its connections over them
   * round-robin (connection i keeps url[i % n]), e.g. the instances of a cluster.
   */
  url: string | string[];
  /** GET unless given; a POST sends `body` as JSON (the same bytes on every request). */
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
  /**
   * When given, builds every request instead (its path, with the query; its headers, merged over
   * `headers`; its JSON body): called once per request, across all connections, in sending order.
   * `url` still gives the origin.
   */
  next?: () => { path: string; headers?: Record<string, string>; body?: unknown };
  /** Checks each answer's body; false counts as a mismatch, which fails a measured run. */
  verifyBody?: (body: string) => boolean;
  /** Concurrent connections for this target, instead of the settings' (BENCH_CONNECTIONS). */
  connections?: number;
}

export interface RunCounts {
  durationS: number;
  /** Requests written (some may still be unanswered when the run ends). */
  sent: number;
  totalRequests: number;
  count2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  resets: number;
  statusCodes: Record<string, number>;
}

export interface Measurement extends RunCounts {
  name: string;
  /** The URL, or the URLs joined by spaces. */
  url: string;
  method: 'GET' | 'POST';
  connections: number;
  reqPerSecMean: number;
  reqPerSecStddev: number;
  latencyMeanMs: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  /** Counts of the warm-up run, or null when BENCH_WARMUP_S=0. */
  warmup: RunCounts | null;
}

/** A measured run that saw a non-2xx answer, an error or a timeout. */
export class LoadFailure extends Error {
  constructor(
    message: string,
    readonly measurement: Measurement,
  ) {
    super(message);
    this.name = 'LoadFailure';
  }
}

function countsOf(result: AutocannonResult): RunCounts {
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statusCodes[code] = count;
  return {
    durationS: result.duration,
    sent: result.requests.sent,
    totalRequests: result.requests.total,
    count2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches: result.mismatches,
    resets: result.resets,
    statusCodes,
  };
}

/** Why a run is not clean, or undefined when every answer was a 2xx. */
export function problemsOf(counts: RunCounts): string | undefined {
  const problems: string[] = [];
  if (counts.non2xx > 0) problems.push(`${counts.non2xx} non-2xx`);
  if (counts.errors > 0) problems.push(`${counts.errors} errors (of which ${counts.timeouts} timeouts)`);
  if (counts.mismatches > 0) problems.push(`${counts.mismatches} body mismatches`);
  if (counts.count2xx === 0) problems.push('no 2xx answer at all');
  if (problems.length === 0) return undefined;
  return `${problems.join(', ')}; status counts ${JSON.stringify(counts.statusCodes)}`;
}

const urlText = (url: string | string[]) => (Array.isArray(url) ? url.join(' ') : url);

const withJsonType = (headers: Record<string, string> | undefined) => ({ ...headers, 'content-type': 'application/json' });

function run(target: LoadTarget, settings: LoadSettings, durationS: number): Promise<AutocannonResult> {
  const hasBody = target.body !== undefined;
  const method = target.method ?? 'GET';
  const next = target.next;
  return Promise.resolve(
    autocannon({
      url: target.url,
      method,
      headers: hasBody ? withJsonType(target.headers) : target.headers,
      body: hasBody ? JSON.stringify(target.body) : undefined,
      requests: next
        ? [
            {
              method,
              setupRequest: (request) => {
                const r = next();
                const headers = { ...request.headers, ...r.headers };
                if (r.body === undefined) return { ...request, method, path: r.path, headers };
                return { ...request, method, path: r.path, headers: withJsonType(headers), body: JSON.stringify(r.body) };
              },
            },
          ]
        : undefined,
      verifyBody: target.verifyBody,
      connections: target.connections ?? settings.connections,
      pipelining: settings.pipelining,
      duration: durationS,
      timeout: settings.timeoutS,
      title: target.name,
    }),
  );
}

/**
 * A warm-up run (not measured, its counts kept for the record), then the measured run.
 * Throws LoadFailure when the measured run is not clean.
 */
export async function measure(target: LoadTarget, settings: LoadSettings): Promise<Measurement> {
  let warmup: RunCounts | null = null;
  if (settings.warmupS > 0) {
    warmup = countsOf(await run(target, settings, settings.warmupS));
    const warmupProblems = problemsOf(warmup);
    if (warmupProblems) console.warn(`[bench] warning: warm-up of ${target.name}: ${warmupProblems}`);
  }
  const result = await run(target, settings, settings.durationS);
  const measurement: Measurement = {
    name: target.name,
    url: urlText(target.url),
    method: target.method ?? 'GET',
    connections: target.connections ?? settings.connections,
    ...countsOf(result),
    reqPerSecMean: result.requests.mean,
    reqPerSecStddev: result.requests.stddev,
    latencyMeanMs: result.latency.mean,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    warmup,
  };
  const problems = problemsOf(measurement);
  if (problems) throw new LoadFailure(`measured run of ${target.name} (${target.method ?? 'GET'} ${urlText(target.url)}) failed: ${problems}`, measurement);
  return measurement;
}
