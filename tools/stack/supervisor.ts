import type { ChildProcess } from 'node:child_process';

/** How long to wait before restart number `restart` (1, 2, …): 500 ms doubling, capped at 30 s. */
export function restartDelayMs(restart: number): number {
  return Math.min(30_000, 500 * 2 ** Math.min(restart - 1, 16));
}

export interface SupervisorOptions {
  /** Starts (or starts again) the process. */
  start: () => ChildProcess;
  /** The wait before restart N; `restartDelayMs` by default. */
  delayMs?: (restart: number) => number;
  /** A process that ran this long before it exited restarts without delay, its count reset. */
  healthyAfterMs?: number;
  /** Told of every unexpected exit and when the process will start again. */
  onRestart?: (event: {
    code: number | null;
    signal: NodeJS.Signals | null;
    restart: number;
    delayMs: number;
  }) => void;
  /** Told of every (re)start, with the new child. */
  onStart?: (child: ChildProcess) => void;
}

/**
 * Keeps one process running as Kubernetes keeps a pod's container: when it exits while not
 * being stopped, it is started again after a backoff that grows with each crash in a row
 * (CrashLoopBackOff) and resets once the process has stayed up for a while.
 */
export class Supervisor {
  private child: ChildProcess;
  private startedAt = Date.now();
  private restarts = 0;
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SupervisorOptions) {
    this.child = this.launch();
  }

  get current(): ChildProcess {
    return this.child;
  }

  /** How many times the process was started again. */
  get restartCount(): number {
    return this.restarts;
  }

  private launch(): ChildProcess {
    const child = this.options.start();
    this.startedAt = Date.now();
    child.once('exit', (code, signal) => this.exited(child, code, signal));
    this.options.onStart?.(child);
    return child;
  }

  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopping || child !== this.child) return;
    const uptime = Date.now() - this.startedAt;
    const healthy = uptime >= (this.options.healthyAfterMs ?? 60_000);
    const inARow = healthy ? 1 : this.restarts + 1;
    const delayMs = healthy ? 0 : (this.options.delayMs ?? restartDelayMs)(inARow);
    this.restarts += 1;
    this.options.onRestart?.({ code, signal, restart: this.restarts, delayMs });
    this.timer = setTimeout(() => {
      if (!this.stopping) this.child = this.launch();
    }, delayMs);
  }

  /** Stops restarting; the caller stops the current process. */
  stop(): void {
    this.stopping = true;
    clearTimeout(this.timer);
  }
}
