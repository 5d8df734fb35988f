// The driver processes: the players split over worker processes (`worker.ts`, over IPC), or
// driven in this process when there are none (the e2e tests).
import { spawn, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import type { DriverOptions, DriverReport, StartReport, Tally } from './driver-contract';
import { PlayerDriver } from './players';
import type { FromWorker, ToWorker } from './worker';

const root = join(__dirname, '..', '..');

/** Drives players in worker processes, or here when `drivers` is 0. */
export interface Drivers {
  start(): Promise<StartReport>;
  finish(timeoutMs: number): Promise<DriverReport>;
  stop(): void;
  pids: number[];
}

export function localDrivers(options: DriverOptions): Drivers {
  const driver = new PlayerDriver(options);
  return {
    start: () => driver.start(),
    finish: async (timeoutMs) => {
      const report = await driver.finished(timeoutMs);
      driver.close();
      return report;
    },
    stop: () => driver.close(),
    pids: [],
  };
}

export function workerDrivers(
  options: DriverOptions,
  count: number,
  nodeFlags: string[],
  nice: number,
): Drivers {
  const workers: ChildProcess[] = [];
  for (let index = 0; index < count; index += 1) {
    workers.push(
      spawn(process.execPath, [...nodeFlags, '--import', 'tsx', join(__dirname, 'worker.ts')], {
        cwd: root,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
    const pid = workers.at(-1)?.pid;
    if (nice !== 0 && pid !== undefined) setPriority(pid, nice);
  }
  const ask = <K extends FromWorker['kind']>(
    worker: ChildProcess,
    message: ToWorker,
    kind: K,
  ): Promise<Extract<FromWorker, { kind: K }>> =>
    new Promise((resolve, reject) => {
      const onMessage = (answer: FromWorker) => {
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        if (answer.kind === 'failed') reject(new Error(`driver: ${answer.message}`));
        else if (answer.kind === kind) resolve(answer as Extract<FromWorker, { kind: K }>);
        else reject(new Error(`driver answered ${answer.kind}, expected ${kind}`));
      };
      const onExit = (code: number | null) => reject(new Error(`driver exited (${code})`));
      worker.on('message', onMessage);
      worker.once('exit', onExit);
      worker.send(message);
    });
  return {
    pids: workers.map((worker) => worker.pid ?? -1),
    async start() {
      const answers = await Promise.all(
        workers.map((worker, index) =>
          ask(
            worker,
            {
              kind: 'start',
              options: {
                ...options,
                players: options.players.filter((_, player) => player % count === index),
              },
            },
            'connected',
          ),
        ),
      );
      return {
        connected: answers.reduce((sum, answer) => sum + answer.connected, 0),
        waiting: answers.reduce((sum, answer) => sum + answer.waiting, 0),
        failed: answers.reduce((sum, answer) => sum + answer.failed, 0),
        failures: answers.reduce<Record<string, number>>((all, answer) => {
          for (const [reason, count] of Object.entries(answer.failures)) {
            all[reason] = (all[reason] ?? 0) + count;
          }
          return all;
        }, {}),
        openMs: answers.flatMap((answer) => answer.openMs),
        snapshotMs: answers.flatMap((answer) => answer.snapshotMs),
      };
    },
    async finish(timeoutMs) {
      const reports = await Promise.all(
        workers.map((worker) => ask(worker, { kind: 'finish', timeoutMs }, 'report')),
      );
      return {
        tallies: Object.assign({}, ...reports.map(({ report }) => report.tallies)) as Record<
          number,
          Tally
        >,
        connected: reports.reduce((sum, { report }) => sum + report.connected, 0),
        connectFailures: reports.reduce((sum, { report }) => sum + report.connectFailures, 0),
        dropped: reports.reduce((sum, { report }) => sum + report.dropped, 0),
        httpFailures: reports.reduce((sum, { report }) => sum + report.httpFailures, 0),
        outcomes: reports.flatMap(({ report }) => report.outcomes),
        loopDelayMs: reports.flatMap(({ report }) => report.loopDelayMs),
      };
    },
    stop() {
      for (const worker of workers) if (worker.connected) worker.disconnect();
    },
  };
}
