import { readFileSync, readdirSync } from 'node:fs';

/*
 * Memory of the processes the bench measures, from /proc/<pid>/status (Linux): VmRSS (resident
 * now) and VmHWM (the highest resident size since the process started). Elsewhere every reading
 * is null and the table shows "-".
 */

export interface MemoryReading {
  rssKb: number;
  hwmKb: number;
}

/** VmRSS and VmHWM of a process in kB, or null (no /proc, or the process is gone). */
export function readMemory(pid: number): MemoryReading | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) : null;
  };
  const rssKb = field('VmRSS');
  const hwmKb = field('VmHWM');
  return rssKb === null || hwmKb === null ? null : { rssKb, hwmKb };
}

/** The pids whose parent is `ppid` (from /proc/<pid>/stat; empty without /proc). */
export function childPids(ppid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (ppid) comes after the command name, which may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === ppid) children.push(Number(entry));
    } catch {
      // gone in the meantime
    }
  }
  return children.sort((a, b) => a - b);
}

const mb = (kb: number) => Math.round((kb / 1024) * 10) / 10;

/** The VmRSS of each process now (MB, whole), e.g. at idle just before a load; null where /proc had nothing. */
export function currentRssMb(pids: number[]): (number | null)[] {
  return pids.map((pid) => {
    const reading = readMemory(pid);
    return reading ? Math.round(reading.rssKb / 1024) : null;
  });
}

/**
 * Samples the VmRSS of some processes every `intervalMs` until stopped. `stop()` gives, in the
 * order of `pids`, the highest VmRSS sampled (MB) and the VmHWM at that moment (the peak of the
 * process's whole life so far); null where /proc had nothing.
 */
export function startRssSampler(pids: number[], intervalMs = 250): { stop(): { peakRssMb: (number | null)[]; hwmMb: (number | null)[] } } {
  const peaks: (number | null)[] = pids.map(() => null);
  const sample = () => {
    pids.forEach((pid, i) => {
      const reading = readMemory(pid);
      if (reading) peaks[i] = Math.max(peaks[i] ?? 0, reading.rssKb);
    });
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      const hwm = pids.map((pid) => readMemory(pid)?.hwmKb ?? null);
      return { peakRssMb: peaks.map((kb) => (kb === null ? null : mb(kb))), hwmMb: hwm.map((kb) => (kb === null ? null : mb(kb))) };
    },
  };
}

/** The median of a few VmRSS readings taken `spacingMs` apart (kB), or null without /proc. */
export async function steadyRssKb(pid: number, readings = 5, spacingMs = 200): Promise<number | null> {
  const values: number[] = [];
  for (let i = 0; i < readings; i++) {
    const r = readMemory(pid);
    if (r) values.push(r.rssKb);
    if (i < readings - 1) await new Promise((resolve) => setTimeout(resolve, spacingMs));
  }
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)]!;
}

/** The soft and hard limits on open files of this process (`ulimit -n`), or null without /proc. */
export function openFileLimits(): { soft: number; hard: number } | null {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const match = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(limits);
    if (!match) return null;
    const value = (v: string) => (v === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(v));
    return { soft: value(match[1]!), hard: value(match[2]!) };
  } catch {
    return null;
  }
}
