import type { Component } from '@underdog/kit';

/**
 * A process component that runs `pass` when started, then `intervalMs` after each pass ends
 * (never two passes at once), until stopped; stopping waits for a pass under way. `pass` must
 * not reject: it logs its own failure, and the next pass comes an interval later.
 */
export function periodicComponent(options: {
  name: string;
  pass: () => Promise<void>;
  intervalMs: number;
  /** False: a pending wait does not keep the process alive (default true). */
  keepsAlive?: boolean;
  /** Report ready (`/readyz`) while running; default no check. */
  readiness?: boolean;
}): Component {
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> | undefined;
  const run = async (): Promise<void> => {
    try {
      await options.pass();
    } finally {
      if (running) {
        timer = setTimeout(() => {
          pass = run();
        }, options.intervalMs);
        if (options.keepsAlive === false) timer.unref();
      }
    }
  };
  return {
    name: options.name,
    start: async () => {
      running = true;
      pass = run();
    },
    stop: async () => {
      running = false;
      clearTimeout(timer);
      await pass;
    },
    ...(options.readiness ? { isReady: () => running } : {}),
  };
}
