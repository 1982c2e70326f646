import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The repository root: the built service is `dist/src/main.js` under it. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Variables of the developer's shell that must never leak into a service a test starts. */
const PRIVATE_VARIABLES = ['DATABASE_URL', 'REDIS_URL', 'REDIS_KEY_PREFIX', 'SMTP_URL', 'ENCRYPTION_KEY', 'JWT_PRIVATE_KEY', 'JWT_PUBLIC_KEY', 'PORT', 'LOG_LEVEL'];

/**
 * A free port for a server a test starts in another process. It is chosen below the kernel's
 * ephemeral range (the local ports of outgoing connections), so no connection opened meanwhile (the
 * other instances' pools connecting to PostgreSQL and Redis) can take it before the server binds
 * it: a port the kernel picked itself (`listen(0)`) is from that range, and so was a random one
 * between 20,000 and 50,000 (a cluster instance once failed with EADDRINUSE that way).
 */
export function freePort(): Promise<number> {
  return freePortRange(1);
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** The first of `count` consecutive free ports (start:cluster takes PORT, PORT+1, ...), below the ephemeral range (freePort). */
export async function freePortRange(count: number): Promise<number> {
  const [low, high] = listeningPorts();
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = low + Math.floor(Math.random() * (high - low - count));
    let free = true;
    for (let i = 0; i < count && free; i++) free = await portIsFree(base + i);
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}

/** Ports no outgoing connection is given: from 10,000 to just below the kernel's ephemeral range (Linux: 32768 unless set otherwise). */
function listeningPorts(): [number, number] {
  try {
    const [first] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (first !== undefined && Number.isInteger(first) && first > 12_000) return [10_000, first];
  } catch {
    // Not Linux: the usual ephemeral ranges start at 32768 or above (macOS and Windows: 49152).
  }
  return [10_000, 32_768];
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A process of the built service (or of a script) with its output kept line by line. */
export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** Every line written to stdout and stderr, in order. */
  lines: string[];
  output(): string;
  /** The pino JSON lines, parsed. */
  logs(): Array<Record<string, any>>;
  exit: Promise<Exit>;
}

/** Starts `node <args>` from the repository root with only the given environment on top of a cleaned one. */
export function spawnNode(name: string, args: string[], env: Record<string, string | undefined>): ServiceProcess {
  return spawnProcess(name, process.execPath, args, env);
}

/**
 * Starts any command from the repository root, the same way (a package.json script run through
 * `sh -c`). With `group`, it leads a process group of its own: stop it with `process.kill(-pid)`,
 * which reaches the shell's children too.
 */
export function spawnProcess(name: string, command: string, args: string[], env: Record<string, string | undefined>, options: { group?: boolean } = {}): ServiceProcess {
  const full: NodeJS.ProcessEnv = { ...process.env };
  for (const k of PRIVATE_VARIABLES) delete full[k];
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete full[k];
    else full[k] = v;
  }
  const child = spawn(command, args, { cwd: repoRoot, env: full, stdio: ['ignore', 'pipe', 'pipe'], detached: options.group === true });
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l));
  createInterface({ input: child.stderr! }).on('line', (l) => lines.push(l));
  const exit = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  return {
    name,
    child,
    lines,
    output: () => lines.join('\n'),
    logs: () => lines.flatMap((l) => parseLogLine(l.replace(/^\[[^\]]*\] /, ''))),
    exit,
  };
}

function parseLogLine(line: string): Array<Record<string, any>> {
  if (!line.startsWith('{')) return [];
  try {
    return [JSON.parse(line) as Record<string, any>];
  } catch {
    return [];
  }
}

/** One instance of the built service on its own port. */
export interface ServiceInstance extends ServiceProcess {
  port: number;
  url: string;
}

export function startService(name: string, port: number, env: Record<string, string | undefined>): ServiceInstance {
  const proc = spawnNode(name, ['dist/src/main.js'], { ...env, PORT: String(port), HOST: '127.0.0.1' });
  return Object.assign(proc, { port, url: `http://127.0.0.1:${port}` });
}

/** Resolves once `GET /ready` answers 200; fails when the process exits first. */
export async function waitReady(instance: { url: string } & Pick<ServiceProcess, 'child' | 'output'>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (instance.child.exitCode !== null || instance.child.signalCode !== null) throw new Error(`exited early:\n${instance.output()}`);
    if (await readyStatus(instance.url).then((s) => s === 200)) return;
    await sleep(200);
  }
  throw new Error(`not ready after ${timeoutMs} ms:\n${instance.output()}`);
}

/** The status of `GET /ready`, or 0 when nothing answers. */
export function readyStatus(url: string): Promise<number> {
  return fetch(`${url}/ready`, { signal: AbortSignal.timeout(5000) }).then(
    (r) => r.status,
    () => 0,
  );
}

/** Sends a signal and waits for the process to end. */
export async function stopProcess(proc: ServiceProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<Exit> {
  if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill(signal);
  return proc.exit;
}

/** Sums the samples of one Prometheus metric whose labels include `labels`. */
export function metricSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const given = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => given[k] === v)) sum += Number(m[3]);
  }
  return sum;
}
