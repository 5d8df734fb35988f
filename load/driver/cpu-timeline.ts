// CPU per process in 10 ms steps around the close of voting (`--cpu-timeline`), from Linux
// perf: `perf stat -I 10 -e task-clock --per-thread` counts each thread's time on a CPU to the
// nanosecond, where /proc's counters move in ticks of 10 ms. It shows which process a close's
// milliseconds go to, and whether the two cores were busy (docs/benchmarks.md, the seventh pass).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpuSecondsOf } from './processes';

/** One thread's CPU time in one interval of `perf stat -I`. */
export interface ThreadInterval {
  /** The end of the interval, ms after perf started counting. */
  endMs: number;
  tid: number;
  cpuMs: number;
}

/**
 * `perf stat -x , --per-thread -I <ms>` lines: `<seconds>,<comm>-<tid>,<msec>,msec,task-clock,…`.
 * A thread's name may hold spaces and dashes (`C1 CompilerThre-812`): the tid is after the last
 * dash. `<not counted>` is a thread that did not run in the interval: 0 ms. Comments and blank
 * lines are left out.
 */
export function parsePerfStat(text: string): ThreadInterval[] {
  const intervals: ThreadInterval[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(',');
    if (fields.length < 3 || line.startsWith('#')) continue;
    const seconds = Number(fields[0]);
    const tid = Number(fields[1]?.slice(fields[1].lastIndexOf('-') + 1));
    const cpuMs = fields[2] === '<not counted>' ? 0 : Number(fields[2]);
    if (!Number.isFinite(seconds) || !Number.isInteger(tid) || !Number.isFinite(cpuMs)) continue;
    intervals.push({ endMs: seconds * 1000, tid, cpuMs });
  }
  return intervals;
}

export interface TimelineOptions {
  /** When perf started counting (epoch ms). */
  startedAt: number;
  /** The moment the table is lined up with (epoch ms): the close of voting. */
  origin: number;
  /** Each thread's process. */
  processOf: ReadonlyMap<number, number>;
  /** Each process's name in the table. */
  names: ReadonlyMap<number, string>;
  fromMs: number;
  toMs: number;
  binMs?: number;
}

export interface Timeline {
  binMs: number;
  /** The processes with any CPU in the window, busiest first. */
  names: string[];
  /**
   * `cores` is the CPU of the bin's intervals over their length: perf's timer is late when both
   * cores are busy, so an interval may be longer than 10 ms and a bin may get none (`null`).
   */
  rows: Array<{ fromMs: number; cpuMs: Record<string, number>; cores: number | null }>;
}

/** Each of perf's interval ends (ms) with the interval's length: perf's timer may be late. */
function intervalLengths(intervals: readonly ThreadInterval[]): Map<number, number> {
  const ends = [...new Set(intervals.map((interval) => interval.endMs))].sort((a, b) => a - b);
  return new Map(ends.map((end, index) => [end, end - (ends[index - 1] ?? 0)]));
}

/**
 * Sums the threads' intervals per process into bins of `binMs` around `origin`. An interval
 * goes to the bin of its middle.
 */
export function cpuTimeline(
  intervals: readonly ThreadInterval[],
  options: TimelineOptions,
): Timeline {
  const binMs = options.binMs ?? 10;
  const lengthOf = intervalLengths(intervals);
  const bins = new Map<number, { cpuMs: Record<string, number>; wallMs: number }>();
  const binOf = (endMs: number) => {
    const middle = options.startedAt + endMs - lengthOf.get(endMs)! / 2 - options.origin;
    return middle < options.fromMs || middle >= options.toMs
      ? undefined
      : Math.floor(middle / binMs) * binMs;
  };
  for (const [end, length] of lengthOf) {
    const bin = binOf(end);
    if (bin === undefined) continue;
    const entry = bins.get(bin) ?? { cpuMs: {}, wallMs: 0 };
    entry.wallMs += length;
    bins.set(bin, entry);
  }
  const totals = new Map<string, number>();
  for (const interval of intervals) {
    const bin = binOf(interval.endMs);
    // A thread that did not run still marks the interval's length (above), nothing more.
    if (bin === undefined || interval.cpuMs === 0) continue;
    const pid = options.processOf.get(interval.tid);
    const name = (pid !== undefined ? options.names.get(pid) : undefined) ?? 'other';
    const { cpuMs } = bins.get(bin)!;
    cpuMs[name] = (cpuMs[name] ?? 0) + interval.cpuMs;
    totals.set(name, (totals.get(name) ?? 0) + interval.cpuMs);
  }
  const rows: Timeline['rows'] = [];
  for (let from = Math.floor(options.fromMs / binMs) * binMs; from < options.toMs; from += binMs) {
    const entry = bins.get(from);
    const busy = Object.values(entry?.cpuMs ?? {}).reduce((sum, ms) => sum + ms, 0);
    rows.push({
      fromMs: from,
      cpuMs: entry?.cpuMs ?? {},
      cores: entry && entry.wallMs > 0 ? busy / entry.wallMs : null,
    });
  }
  const names = [...totals].sort((a, b) => b[1] - a[1]).map(([name]) => name);
  return { binMs, names, rows };
}

/** The timeline as a markdown table: CPU ms per process per bin, and the cores busy. */
export function timelineTable(timeline: Timeline, heading: string): string {
  const header = ['ms after the close', 'cores busy', ...timeline.names];
  const lines = [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...timeline.rows.map(
      (row) =>
        `| ${row.fromMs} → ${row.fromMs + timeline.binMs} | ${row.cores === null ? '—' : row.cores.toFixed(2)} | ${timeline.names
          .map((name) => (row.cpuMs[name] ?? 0).toFixed(1))
          .join(' | ')} |`,
    ),
  ];
  const sums = timeline.names.map((name) =>
    timeline.rows.reduce((sum, row) => sum + (row.cpuMs[name] ?? 0), 0),
  );
  const total = sums.reduce((all, ms) => all + ms, 0);
  lines.push(
    `| **CPU ms in all** | ${total.toFixed(1)} | ${sums.map((ms) => ms.toFixed(1)).join(' | ')} |`,
  );
  return [heading, '', ...lines].join('\n');
}

/** How far from where the file's first line puts the burst `lineUp` looks for it (ms). */
const searchMs = 60;

/**
 * When perf started counting, in epoch ms. perf's interval timestamps count from its own start,
 * which is not visible from outside; the file's first line only bounds it (perf buffers its
 * output). So the recorder burns `burst` (epoch ms) of CPU on one thread, `tid`, and this finds
 * that burst in the intervals: within `searchMs` of where `rough` puts it, the thread's intervals of
 * at least half its busiest one; their CPU-weighted middle is the burst's middle. `rough` is kept
 * when the burst is not there.
 */
export function lineUp(
  intervals: readonly ThreadInterval[],
  tid: number,
  burst: { from: number; to: number },
  rough: number,
): number {
  const lengthOf = intervalLengths(intervals);
  const middle = (burst.from + burst.to) / 2;
  const near = intervals
    .filter((interval) => interval.tid === tid)
    .map((interval) => ({
      at: interval.endMs - lengthOf.get(interval.endMs)! / 2,
      cpuMs: interval.cpuMs,
    }))
    .filter((interval) => Math.abs(rough + interval.at - middle) <= searchMs);
  // The burst's intervals, not the thread's other work nearby (reading perf's file, starting).
  const peak = Math.max(0, ...near.map((interval) => interval.cpuMs));
  const busy = near.filter((interval) => interval.cpuMs >= peak / 2);
  const cpu = busy.reduce((sum, interval) => sum + interval.cpuMs, 0);
  if (cpu < (burst.to - burst.from) / 4) return rough;
  return middle - busy.reduce((sum, interval) => sum + interval.cpuMs * interval.at, 0) / cpu;
}

/** How long the recorder keeps its thread busy to line perf's clock up (`lineUp`). */
const burstMs = 40;

/** A running `perf stat` over some processes' threads. */
export interface CpuRecorder {
  /**
   * Stops perf: the intervals it counted, and the CPU seconds perf itself took meanwhile (it
   * reads every thread's counter each interval, on the same cores as what it measures).
   */
  stop(): Promise<{ intervals: ThreadInterval[]; perfCpuSeconds: number; startedAt: number }>;
  /** Each thread's process, as listed when perf started (threads started later are 'other'). */
  processOf: Map<number, number>;
}

/**
 * Starts `perf stat` on every thread of `pids` (this process among them: its main thread marks
 * the time, see `lineUp`), writing to `file`. Fails loudly when perf is missing or not allowed:
 * `--cpu-timeline` asks for it.
 */
export async function recordCpu(pids: readonly number[], file: string): Promise<CpuRecorder> {
  const processOf = new Map<number, number>();
  for (const pid of pids) {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) processOf.set(Number(tid), pid);
    } catch {
      // The process is gone: nothing of it to count.
    }
  }
  rmSync(file, { force: true });
  const child: ChildProcess = spawn(
    'perf',
    [
      'stat',
      '-I',
      '10',
      '-e',
      'task-clock',
      '-x',
      ',',
      '--per-thread',
      '-p',
      [...new Set(processOf.values())].join(','),
      '-o',
      file,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'ENOENT'
            ? '--cpu-timeline needs Linux perf on the PATH (Debian: apt-get install linux-perf)'
            : `--cpu-timeline: perf did not start: ${error.message}`,
        ),
      ),
    );
    child.once('exit', (code) =>
      reject(new Error(`--cpu-timeline: perf stopped (exit ${code}): ${stderr.trim()}`)),
    );
  });
  // After a normal stop the exit rejects too: nobody waits on it then.
  failed.catch(() => undefined);
  // The first interval in the file: perf counts, and started at most that long ago.
  const rough = await Promise.race([failed, firstInterval(file)]);
  await new Promise((resolve) => setTimeout(resolve, searchMs));
  const burst = { from: Date.now(), to: 0 };
  while (Date.now() - burst.from < burstMs) {
    // Busy on purpose: the mark `lineUp` looks for.
  }
  burst.to = Date.now();
  // Nothing else of ours on this thread right after it, within the search.
  await new Promise((resolve) => setTimeout(resolve, searchMs));
  return {
    processOf,
    stop: async () => {
      const perfCpuSeconds = child.pid ? cpuSecondsOf(child.pid) : 0;
      // perf may have stopped by itself (killed, out of file descriptors): read what it wrote.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT');
        await exited;
      }
      const intervals = parsePerfStat(readFileSync(file, 'utf8'));
      const startedAt = lineUp(intervals, process.pid, burst, rough);
      return { intervals, perfCpuSeconds, startedAt };
    },
  };
}

async function firstInterval(file: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (existsSync(file)) {
      const [first] = parsePerfStat(readFileSync(file, 'utf8'));
      if (first) return Date.now() - first.endMs;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error('--cpu-timeline: perf wrote no interval within 10 s');
}
