import type { Logger } from 'pino';

/**
 * A piece of a running process with a start, a stop and a readiness check: an HTTP server, a Kafka
 * consumer, a database connection. A process is a list of components started in order and stopped
 * in reverse, so dependencies come up first and go down last.
 */
export interface Component {
  name: string;
  start?: () => Promise<void>;
  stop?: () => Promise<void>;
  /** True while the component can do its job; feeds `/readyz`. */
  isReady?: () => Promise<boolean> | boolean;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, boolean>;
}

/** A readiness check that has not answered by then counts as not ready (Kubernetes probes: 1 s+). */
export const READINESS_CHECK_TIMEOUT_MS = 2_000;

export class ComponentGroup {
  private readonly started: Component[] = [];
  private stopping = false;

  constructor(
    private readonly logger: Logger,
    private readonly components: Component[],
    private readonly stopTimeoutMs = 10_000,
    /**
     * How long one readiness check may take before it counts as not ready. The checks run side
     * by side, so `/readyz` answers within about this bound whatever a dependency does (a
     * stalled Redis or broker would otherwise hold the probe until TCP gave up).
     */
    private readonly checkTimeoutMs = READINESS_CHECK_TIMEOUT_MS,
  ) {}

  async start(): Promise<void> {
    for (const component of this.components) {
      try {
        await component.start?.();
        this.started.push(component);
        this.logger.debug({ component: component.name }, 'component started');
      } catch (error) {
        this.logger.error({ err: error, component: component.name }, 'component failed to start');
        await this.stop();
        throw error;
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    while (this.started.length > 0) {
      const component = this.started.pop();
      if (!component?.stop) continue;
      try {
        await withTimeout(component.stop(), this.stopTimeoutMs, `stop ${component.name}`);
      } catch (error) {
        // Keep stopping the rest: one stuck component must not keep the others' resources open.
        this.logger.error({ err: error, component: component.name }, 'component failed to stop');
      }
    }
  }

  async readiness(): Promise<ReadinessReport> {
    const results = await Promise.all(
      this.components.map(async (component) => {
        const running = this.started.includes(component) && !this.stopping;
        if (!running || !component.isReady) return [component.name, running] as const;
        try {
          const check = Promise.resolve(component.isReady());
          const ready = await withTimeout(check, this.checkTimeoutMs, `${component.name} ready`);
          return [component.name, ready] as const;
        } catch {
          return [component.name, false] as const;
        }
      }),
    );
    const checks = Object.fromEntries(results);
    return { ready: results.every(([, ready]) => ready), checks };
  }
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts the group and turns SIGINT/SIGTERM into a graceful stop followed by exit. Exit status 0
 * after a clean stop, 1 when starting or stopping failed.
 */
export async function runUntilSignal(group: ComponentGroup, logger: Logger): Promise<void> {
  let shuttingDown = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    group.stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // `on`, not `once`: a wrapper (npm, pnpm, tsx) may relay the terminal's Ctrl-C, and a second
  // SIGINT during the stop must not kill the process with its default action.
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  try {
    await group.start();
  } catch (error) {
    logger.fatal({ err: error }, 'start failed');
    process.exit(1);
  }
}
