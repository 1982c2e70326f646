import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';

/** Where the CPU went between `startCpuSample()` and `stop()`; percentages of one core. */
export interface CpuUse {
  /** Wall time of the sample, seconds. */
  wallS: number;
  benchPct: number;
  /** The server process, or the sum of the instances' (Linux /proc only, else null). */
  serverPct: number | null;
  machineBusyPct: number;
  cores: number;
  /**
   * What used the most CPU, % of one core, summed by command name ("postgres" is all its
   * backends), with this process as "bench" and the server as "server" (Linux /proc only, else empty).
   */
  topProcesses: { command: string; processes: number; cpuPct: number }[];
}

type ProcessTimes = Map<number, { command: string; cpuSeconds: number }>;

/** utime + stime of a process in seconds and its command name, from /proc (Linux); null elsewhere. */
function processStat(pid: number): { command: string; cpuSeconds: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at the state, field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    // USER_HZ is 100 on every Linux build Node supports.
    if (!Number.isFinite(ticks)) return null;
    return { command: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), cpuSeconds: ticks / 100 };
  } catch {
    return null;
  }
}

/** CPU seconds of every process visible in /proc (empty when there is no /proc). */
function allProcesses(): ProcessTimes {
  const result: ProcessTimes = new Map();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return result;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = processStat(Number(entry));
    if (stat) result.set(Number(entry), stat);
  }
  return result;
}

function topConsumers(before: ProcessTimes, after: ProcessTimes, wallS: number, names: Map<number, string>): CpuUse['topProcesses'] {
  const byCommand = new Map<string, { processes: number; seconds: number }>();
  for (const [pid, end] of after) {
    const start = before.get(pid);
    const used = end.cpuSeconds - (start && start.command === end.command ? start.cpuSeconds : 0);
    if (used <= 0) continue;
    const command = names.get(pid) ?? end.command;
    const entry = byCommand.get(command) ?? { processes: 0, seconds: 0 };
    entry.processes++;
    entry.seconds += used;
    byCommand.set(command, entry);
  }
  return [...byCommand]
    .map(([command, e]) => ({ command, processes: e.processes, cpuPct: (e.seconds / wallS) * 100 }))
    .sort((a, b) => b.cpuPct - a.cpuPct)
    .slice(0, 6);
}

function machineTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  return { idle, total };
}

/** CPU seconds of some processes together, or null when one of them cannot be read. */
function sumCpuSeconds(pids: number[]): number | null {
  let sum = 0;
  for (const pid of pids) {
    const stat = processStat(pid);
    if (!stat) return null;
    sum += stat.cpuSeconds;
  }
  return pids.length > 0 ? sum : null;
}

/**
 * Starts measuring this process, the server (by pid; several: the instances, summed), the machine
 * and every process in /proc.
 */
export function startCpuSample(serverPid?: number | number[]): { stop(): CpuUse } {
  const serverPids = serverPid === undefined ? [] : Array.isArray(serverPid) ? serverPid : [serverPid];
  const startedAt = performance.now();
  const cpuBefore = process.cpuUsage();
  const serverBefore = sumCpuSeconds(serverPids);
  const machineBefore = machineTimes();
  const processesBefore = allProcesses();
  return {
    stop(): CpuUse {
      const wallS = Math.max(1e-3, (performance.now() - startedAt) / 1000);
      const cpu = process.cpuUsage(cpuBefore);
      const serverAfter = sumCpuSeconds(serverPids);
      const machineAfter = machineTimes();
      const names = new Map<number, string>([[process.pid, 'bench']]);
      for (const pid of serverPids) names.set(pid, 'server');
      const machineTotal = machineAfter.total - machineBefore.total;
      const cores = os.cpus().length;
      return {
        wallS,
        benchPct: ((cpu.user + cpu.system) / 1e6 / wallS) * 100,
        serverPct: serverBefore !== null && serverAfter !== null ? ((serverAfter - serverBefore) / wallS) * 100 : null,
        machineBusyPct: machineTotal > 0 ? (1 - (machineAfter.idle - machineBefore.idle) / machineTotal) * cores * 100 : 0,
        cores,
        topProcesses: topConsumers(processesBefore, allProcesses(), wallS, names),
      };
    },
  };
}
