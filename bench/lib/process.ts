import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { onCleanup } from './cleanup.js';

export interface SpawnOptions {
  /** Short label used in messages, e.g. "server". */
  name: string;
  /** Path of the JavaScript entry point to run with this Node binary. */
  script: string;
  /** Arguments after the script. */
  args?: string[];
  /** Node's own arguments, before the script (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Echo the child's output live, prefixed with its name (otherwise only kept for error messages). */
  echo?: boolean;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildHandle {
  readonly name: string;
  readonly pid: number;
  /** Resolves when the process has exited. */
  readonly exited: Promise<ExitInfo>;
  isRunning(): boolean;
  /** The last lines the child wrote to stdout/stderr. */
  tail(lines?: number): string;
  /** SIGTERM, then SIGKILL after `graceMs`. Idempotent. */
  stop(graceMs?: number): Promise<void>;
  /**
   * The processes that serve its requests, whose memory the bench reports: the child itself, or
   * for a launcher of several instances (start:cluster) the instances, in port order.
   */
  servingPids(): number[];
}

const TAIL_LINES = 200;

/** Spawns `node <script>` as a child with piped output, registered for cleanup. */
export function spawnNode(options: SpawnOptions): ChildHandle {
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const push = (line: string, label: string) => {
    lines.push(line);
    if (lines.length > TAIL_LINES) lines.shift();
    if (options.echo) process.stderr.write(`[${options.name} ${label}] ${line}\n`);
  };
  // Errors after a successful spawn (e.g. a failed kill) do not end the process: just note them.
  child.on('error', (err) => push(`process error: ${err.message}`, 'err'));
  if (child.pid === undefined) {
    // A failed spawn (ENOENT, EACCES) leaves pid undefined at once; its 'error' event comes later.
    throw new Error(`could not start ${options.name} (${options.script})`);
  }
  const pid = child.pid;
  const collect = (stream: NodeJS.ReadableStream | null, label: string) => {
    if (!stream) return;
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) push(line, label);
    });
    stream.on('end', () => {
      if (partial) push(partial, label);
      partial = '';
    });
  };
  collect(child.stdout, 'out');
  collect(child.stderr, 'err');

  let running = true;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      resolve({ code, signal });
    });
  });

  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 5_000): Promise<void> => {
    stopping ??= (async () => {
      if (!running) return;
      child.kill('SIGTERM');
      const outcome = await Promise.race([exited.then(() => 'exited' as const), sleep(graceMs, 'timeout' as const)]);
      if (outcome === 'timeout' && running) {
        console.warn(`[bench] warning: ${options.name} did not exit within ${graceMs} ms of SIGTERM: killed`);
        child.kill('SIGKILL');
        await Promise.race([exited, sleep(2_000)]);
      }
    })();
    return stopping;
  };

  onCleanup(
    `stop ${options.name}`,
    () => stop(),
    () => {
      if (running) child.kill('SIGKILL');
    },
  );

  return {
    name: options.name,
    pid,
    exited,
    isRunning: () => running,
    tail: (count = 40) => lines.slice(-count).join('\n'),
    stop,
    servingPids: () => [pid],
  };
}

export interface WaitOptions {
  /** Base URLs to try (e.g. IPv4 and IPv6 loopback); the first that answers wins. */
  baseUrls: string[];
  path: string;
  timeoutMs: number;
  expectStatus?: number;
  headers?: Record<string, string>;
  intervalMs?: number;
}

/**
 * Polls `GET <base><path>` until it answers `expectStatus` (200 by default). Returns the base URL
 * that answered. Fails early, with the child's last output, if the child exits first.
 */
export async function waitForHttp(child: ChildHandle, options: WaitOptions): Promise<string> {
  const expect = options.expectStatus ?? 200;
  const deadline = Date.now() + options.timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (!child.isRunning()) {
      const info = await child.exited;
      throw new Error(`${child.name} exited (code ${info.code}, signal ${info.signal}) before ${options.path} answered ${expect}.\n` + `--- last output of ${child.name} ---\n${child.tail()}`);
    }
    for (const base of options.baseUrls) {
      try {
        const res = await fetch(base + options.path, { headers: options.headers, signal: AbortSignal.timeout(2_000) });
        await res.arrayBuffer();
        if (res.status === expect) return base;
        last = `${base}${options.path} answered ${res.status}`;
      } catch (err) {
        last = `${base}${options.path}: ${describeFetchError(err)}`;
      }
    }
    await sleep(options.intervalMs ?? 250);
  }
  throw new Error(
    `${child.name} did not answer ${expect} on ${options.path} within ${Math.round(options.timeoutMs / 1000)} s ` + `(last: ${last}).\n--- last output of ${child.name} ---\n${child.tail()}`,
  );
}

export function describeFetchError(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause;
    if (cause instanceof Error) {
      const code = (cause as Error & { code?: string }).code;
      return code ? `${err.message} (${code})` : `${err.message} (${cause.message})`;
    }
    return err.message;
  }
  return String(err);
}
