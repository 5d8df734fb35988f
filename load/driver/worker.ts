// One driver process (`bench.ts` starts one per ~12,000 players: a process may hold 20,000 open
// files here). It talks to its parent over the IPC channel: `start` connects its players and
// answers `connected`; `finish` waits for the round's results and answers `report`.
import type { DriverOptions, DriverReport, StartReport } from './driver-contract';
import { PlayerDriver } from './players';

export type ToWorker =
  { kind: 'start'; options: DriverOptions } | { kind: 'finish'; timeoutMs: number };

export type FromWorker =
  | ({ kind: 'connected' } & StartReport)
  | { kind: 'report'; report: DriverReport }
  | { kind: 'failed'; message: string };

let driver: PlayerDriver | undefined;

function send(message: FromWorker): void {
  process.send?.(message);
}

process.on('message', (message: ToWorker) => {
  void (async () => {
    try {
      if (message.kind === 'start') {
        driver = new PlayerDriver(message.options);
        send({ kind: 'connected', ...(await driver.start()) });
      } else {
        if (!driver) throw new Error('finish before start');
        const report = await driver.finished(message.timeoutMs);
        driver.close();
        send({ kind: 'report', report });
      }
    } catch (error) {
      send({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
  })();
});

process.on('disconnect', () => {
  driver?.close();
  process.exit(0);
});
