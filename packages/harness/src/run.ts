import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from './lock';
import { infraDir } from './paths';

const stateFileName = 'harness-state.json';
const keptRuns = 10;

interface TrackedProcess {
  name: string;
  pid: number;
  /** Kernel start time, so that a later run never mistakes a reused pid for its orphan. */
  startTime?: string;
  tmpDir?: string;
}

interface RunState {
  ownerPid: number;
  runId: string;
  processes: TrackedProcess[];
}

/** One harness start: its log folder and the processes it owns. */
export interface Run {
  id: string;
  logDir: string;
  logFile(name: string): string;
  track(entry: Omit<TrackedProcess, 'startTime'>): void;
  untrack(pid: number): void;
}

export function logsRoot(): string {
  return infraDir('logs');
}

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

export function createRun(logDir?: string): Run {
  const id = `${stamp()}-${process.pid}`;
  const dir = logDir ?? join(logsRoot(), id);
  mkdirSync(dir, { recursive: true });
  const state: RunState = { ownerPid: process.pid, runId: id, processes: [] };
  const save = (): void => writeFileSync(join(dir, stateFileName), JSON.stringify(state, null, 2));
  save();
  return {
    id,
    logDir: dir,
    logFile: (name) => join(dir, `${name}.log`),
    track(entry) {
      state.processes.push({ ...entry, startTime: processStartTime(entry.pid) });
      save();
    },
    untrack(pid) {
      state.processes = state.processes.filter((p) => p.pid !== pid);
      save();
    },
  };
}

function readState(dir: string): RunState | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, stateFileName), 'utf8')) as RunState;
  } catch {
    return undefined;
  }
}

/**
 * Field 22 of /proc/<pid>/stat (Linux only). Not the environment: servers such as redis rewrite
 * their process title over it.
 */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in field 2 may hold spaces, so count fields after its closing parenthesis.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** True only when the pid provably is the tracked process, so a reused pid is never killed. */
function isTrackedProcess(proc: TrackedProcess): boolean {
  return proc.startTime !== undefined && processStartTime(proc.pid) === proc.startTime;
}

/**
 * Kills servers left behind by runs whose owner died without stopping them (Ctrl-C during jest,
 * a crashed CI job), because a forgotten 768 MB Kafka JVM starves the next run on a 2-core box.
 */
function reapOrphans(dir: string, state: RunState): void {
  if (isAlive(state.ownerPid) || state.processes.length === 0) return;
  for (const proc of state.processes) {
    if (isTrackedProcess(proc)) {
      try {
        process.kill(-proc.pid, 'SIGKILL');
        console.error(
          `harness: killed orphaned ${proc.name} (pid ${proc.pid}) of run ${state.runId}`,
        );
      } catch {
        // Already gone.
      }
    }
    if (proc.tmpDir !== undefined) rmSync(proc.tmpDir, { recursive: true, force: true });
  }
  writeFileSync(join(dir, stateFileName), JSON.stringify({ ...state, processes: [] }, null, 2));
}

/** Reaps orphans of earlier runs and deletes all but the newest log folders of finished runs. */
export function housekeeping(): void {
  const root = logsRoot();
  let names: string[];
  try {
    names = readdirSync(root).sort();
  } catch {
    return;
  }
  names.forEach((name, index) => {
    const dir = join(root, name);
    const state = readState(dir);
    if (state === undefined) return;
    reapOrphans(dir, state);
    const old = index < names.length - keptRuns;
    if (old && !isAlive(state.ownerPid)) rmSync(dir, { recursive: true, force: true });
  });
}
