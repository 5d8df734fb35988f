// CPU seconds and peak memory per process, from /proc (Linux): `stat` fields 14–15 (utime,
// stime, in clock ticks) and `status` VmHWM (the peak resident set).
import { readdirSync, readFileSync } from 'node:fs';

/** Linux's USER_HZ: `getconf CLK_TCK` is 100 on every mainstream kernel build. */
const TICKS_PER_SECOND = 100;

export interface ProcessSample {
  pid: number;
  name: string;
  cpuSeconds: number;
  peakRssMiB: number;
}

function readStat(pid: number): { ppid: number; comm: string; cpuTicks: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may hold spaces: the fields after the last ')' are fixed.
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    // fields[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
    return {
      ppid: Number(fields[1]),
      comm,
      cpuTicks: Number(fields[11]) + Number(fields[12]),
    };
  } catch {
    return undefined;
  }
}

function peakRssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kib ? Number(kib) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** A process's CPU seconds so far (0 when it is gone). */
export function cpuSecondsOf(pid: number): number {
  const stat = readStat(pid);
  return stat ? stat.cpuTicks / TICKS_PER_SECOND : 0;
}

/** Every live descendant of `root` (not `root` itself). */
export function descendantsOf(root: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (!stat) continue;
    const children = parents.get(stat.ppid) ?? [];
    children.push(Number(entry));
    parents.set(stat.ppid, children);
  }
  const found: number[] = [];
  const queue = [...(parents.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    found.push(pid);
    queue.push(...(parents.get(pid) ?? []));
  }
  return found;
}

/**
 * Samples processes: `named` gives the names of the ones we started ourselves; every other
 * descendant of this process (the infrastructure's servers) is named after its command.
 */
export function sampleProcesses(named: Map<number, string>): ProcessSample[] {
  const pids = new Set([...named.keys(), ...descendantsOf(process.pid)]);
  const samples: ProcessSample[] = [];
  for (const pid of pids) {
    const stat = readStat(pid);
    if (!stat) continue;
    samples.push({
      pid,
      name: named.get(pid) ?? stat.comm,
      cpuSeconds: stat.cpuTicks / TICKS_PER_SECOND,
      peakRssMiB: peakRssMiB(pid),
    });
  }
  samples.push({
    pid: process.pid,
    name: 'bench (orchestrator)',
    cpuSeconds: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
    peakRssMiB: peakRssMiB(process.pid),
  });
  return samples;
}

/** CPU seconds spent between two samples, per process; peak memory as of the later one. */
export function between(before: ProcessSample[], after: ProcessSample[]): ProcessSample[] {
  const start = new Map(before.map((sample) => [sample.pid, sample.cpuSeconds]));
  return after.map((sample) => ({
    ...sample,
    cpuSeconds: sample.cpuSeconds - (start.get(sample.pid) ?? 0),
  }));
}
