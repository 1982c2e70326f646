import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { onCleanup } from './cleanup.js';
import { freeConsecutivePorts } from './free-port.js';
import { childPids } from './rss.js';
import { spawnNode, waitForHttp, type ChildHandle } from './process.js';

/*
 * Several instances of the server the documented way: `scripts/cluster.mjs` (npm run
 * start:cluster -- --instances N), which starts N instances of dist/src/main.js on consecutive
 * ports from PORT, sharing DATABASE_URL and REDIS_URL, and stops them together on SIGTERM.
 */

export interface Cluster {
  /** The launcher; `servingPids()` gives the instances, in port order. */
  handle: ChildHandle;
  /** http://127.0.0.1:<port> of each instance, in port order. */
  bases: string[];
}

/** The PORT an instance was started with (from its environment), or null. */
function portOf(pid: number): number | null {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const entry = env.find((e) => e.startsWith('PORT='));
    return entry ? Number(entry.slice(5)) : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startCluster(options: {
  root: string;
  instances: number;
  env: NodeJS.ProcessEnv;
  readyTimeoutMs: number;
  echo: boolean;
  log: (message: string) => void;
  /** Node's own arguments for the launcher, which gives them to every instance (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
}): Promise<Cluster> {
  const { instances } = options;
  const firstPort = await freeConsecutivePorts(instances);
  const startedAt = Date.now();
  const launcher = spawnNode({
    name: `cluster of ${instances}`,
    script: path.join(options.root, 'scripts', 'cluster.mjs'),
    nodeArgs: options.nodeArgs,
    args: ['--instances', String(instances), '--no-build'],
    cwd: options.root,
    echo: options.echo,
    env: { ...options.env, PORT: String(firstPort) },
  });
  const ports = Array.from({ length: instances }, (_, i) => firstPort + i);
  const bases = ports.map((port) => `http://127.0.0.1:${port}`);
  for (const base of bases) await waitForHttp(launcher, { baseUrls: [base], path: '/ready', timeoutMs: options.readyTimeoutMs });

  // The instances are the launcher's children; ordered by the port each was given.
  let pids: number[] = [];
  for (let attempt = 0; attempt < 20 && pids.length < instances; attempt++) {
    pids = childPids(launcher.pid);
    if (pids.length < instances) await sleep(100);
  }
  pids.sort((a, b) => (portOf(a) ?? a) - (portOf(b) ?? b));
  options.log(`${instances} instances ready on ports ${ports.join(', ')} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (pids ${pids.join(', ')})`);

  // The launcher stops its instances on SIGTERM; one it could not stop in time is killed here.
  const killLeft = () => {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  };
  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 30_000): Promise<void> => {
    stopping ??= (async () => {
      await launcher.stop(graceMs);
      killLeft();
    })();
    return stopping;
  };
  onCleanup(`stop the ${instances} instances`, () => stop(), killLeft);
  return { handle: { ...launcher, stop, servingPids: () => [...pids] }, bases };
}
