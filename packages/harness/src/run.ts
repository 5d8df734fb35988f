import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from './lock';
import { infraDir } from './paths';

/** Servers carry this variable so that a later run can tell its orphans from unrelated pids. */
export const runMarkerVariable = 'UNDERDOG_HARNESS_RUN';
const stateFileName = 'harness-state.json';
const keptRuns = 10;

interface TrackedProcess {
  name: string;
  pid: number;
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
  track(entry: TrackedProcess): void;
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
      state.processes.push(entry);
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

/** True only when the pid provably is a server of that run, so a reused pid is never killed. */
function belongsToRun(pid: number, runId: string): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    return environ.split('\0').includes(`${runMarkerVariable}=${runId}`);
  } catch {
    return false;
  }
}

/**
 * Kills servers left behind by runs whose owner died without stopping them (Ctrl-C during jest,
 * a crashed CI job), because a forgotten 768 MB Kafka JVM starves the next run on a 2-core box.
 */
function reapOrphans(dir: string, state: RunState): void {
  if (isAlive(state.ownerPid) || state.processes.length === 0) return;
  for (const proc of state.processes) {
    if (belongsToRun(proc.pid, state.runId)) {
      try {
        process.kill(-proc.pid, 'SIGKILL');
        console.error(`harness: killed orphaned ${proc.name} (pid ${proc.pid}) of run ${state.runId}`);
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
