import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Run } from './run';

const stopGraceMs = 10_000;
const pollMs = 250;

/** A failure to provide a server; the message names the server, the reason and the log. */
export class InfraError extends Error {
  constructor(
    readonly server: string,
    reason: string,
    readonly logFile?: string,
  ) {
    super(`harness: ${server} could not be provided: ${reason}${logHint(logFile)}`);
    this.name = 'InfraError';
  }
}

function logHint(logFile: string | undefined): string {
  if (logFile === undefined) return '';
  return `\n  log: ${logFile}${tail(logFile)}`;
}

/** The end of a log, so a CI failure can be read without fetching the file. */
export function tail(logFile: string, lines = 25): string {
  if (!existsSync(logFile)) return '';
  const text = readFileSync(logFile, 'utf8').trimEnd();
  if (text === '') return '';
  const last = text.split('\n').slice(-lines);
  return `\n  last ${last.length} log lines:\n${last.map((l) => `    | ${l}`).join('\n')}`;
}

export function appendLog(logFile: string, text: string): void {
  const fd = openSync(logFile, 'a');
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

function describeExit(exit: Exit): string {
  if (exit.error !== undefined) return `could not be started (${exit.error.message})`;
  return exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

export interface LocalProcess {
  pid: number;
  logFile: string;
  /** Set once the process has exited. */
  exit(): Exit | undefined;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Removed after the process stops. */
  tmpDir?: string;
}

/** Group ids of servers still running, for the last-chance cleanup when this process exits. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Only synchronous work is possible here; SIGTERM lets each server shut down on its own after
  // an owner that never called stop() is gone.
  process.on('exit', () => {
    for (const pgid of liveGroups) signalGroup(pgid, 'SIGTERM');
  });
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is already gone.
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a long-running server in its own process group, so that stop() also reaches any
 * children it forks, with stdout and stderr appended to `<run log dir>/<name>.log`.
 */
export function spawnServer(run: Run, opts: SpawnOptions): LocalProcess {
  const logFile = run.logFile(opts.name);
  appendLog(logFile, `$ ${opts.command} ${opts.args.join(' ')}\n`);
  const fd = openSync(logFile, 'a');
  const child = spawn(opts.command, opts.args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', fd, fd],
    detached: true,
  });
  closeSync(fd);
  // The servers must not keep a jest or CLI process alive on their own; stop() ends them.
  child.unref();

  let exit: Exit | undefined;
  const exited = new Promise<void>((resolveExit) => {
    child.once('exit', (code, signal) => {
      exit ??= { code, signal };
      resolveExit();
    });
    child.once('error', (error) => {
      exit ??= { code: null, signal: null, error };
      resolveExit();
    });
  });

  const pid = child.pid;
  if (pid === undefined) {
    return { pid: -1, logFile, exit: () => exit, stop: () => exited };
  }
  liveGroups.add(pid);
  installExitHook();
  run.track({ name: opts.name, pid, tmpDir: opts.tmpDir });

  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    signalGroup(pid, 'SIGTERM');
    const deadline = Date.now() + stopGraceMs;
    while (groupAlive(pid) && Date.now() < deadline) await sleep(100);
    if (groupAlive(pid)) {
      appendLog(logFile, `harness: still running ${stopGraceMs / 1000}s after SIGTERM, SIGKILL\n`);
      signalGroup(pid, 'SIGKILL');
    }
    // Unref'd so that a prompt exit does not leave a timer holding the caller open.
    await Promise.race([exited, sleep(2_000, undefined, { ref: false })]);
    liveGroups.delete(pid);
    run.untrack(pid);
    if (opts.tmpDir !== undefined) rmSync(opts.tmpDir, { recursive: true, force: true });
  };
  return {
    pid,
    logFile,
    exit: () => exit,
    stop: () => (stopping ??= stop()),
  };
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  logFile: string;
  timeoutMs: number;
}

/** Runs a build or setup step to completion, appending its output to a log. */
export async function runStep(command: string, args: string[], opts: RunOptions): Promise<void> {
  appendLog(opts.logFile, `$ ${command} ${args.join(' ')}\n`);
  const fd = openSync(opts.logFile, 'a');
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
  try {
    const exit = await new Promise<Exit>((resolveExit) => {
      child.once('exit', (code, signal) => resolveExit({ code, signal }));
      child.once('error', (error) => resolveExit({ code: null, signal: null, error }));
    });
    if (exit.code !== 0) {
      const why = exit.signal === 'SIGKILL' ? `timed out after ${opts.timeoutMs / 1000}s` : '';
      throw new Error(`\`${command} ${args.join(' ')}\` ${why || describeExit(exit)}`);
    }
  } finally {
    clearTimeout(timer);
  }
}

export interface ReadyOptions<T> {
  server: string;
  timeoutMs: number;
  probe: () => Promise<T>;
  /** Polling stops early, with the exit in the error, if this process dies. */
  proc?: LocalProcess;
  logFile?: string;
}

/** Polls `probe` until it succeeds, the process dies or the timeout passes. */
export async function waitReady<T>(opts: ReadyOptions<T>): Promise<T> {
  const logFile = opts.logFile ?? opts.proc?.logFile;
  const deadline = Date.now() + opts.timeoutMs;
  let lastError = 'no attempt finished';
  for (;;) {
    const exit = opts.proc?.exit();
    if (exit !== undefined) {
      throw new InfraError(
        opts.server,
        `the process ${describeExit(exit)} before it answered`,
        logFile,
      );
    }
    try {
      return await opts.probe();
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline) {
      throw new InfraError(
        opts.server,
        `not ready after ${Math.round(opts.timeoutMs / 1000)}s (last probe error: ${lastError})`,
        logFile,
      );
    }
    await sleep(pollMs);
  }
}
