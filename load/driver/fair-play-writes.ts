// `tsx load/driver/fair-play-writes.ts [rows] [batch sizes…]`: what the tournament service's fair-play
// rows cost to store on FerretDB (the harness's), one insert per row (the consumer before issue
// 28 §1) against one unordered insertMany per consumed batch (after). Prints, per batch size, the
// wall time and the CPU seconds of this process (the service's side: casting, the driver) and of
// the FerretDB process, each run into an empty database; the first run's rows are then stored
// again (a redelivery): nothing doubles. A measurement for docs/benchmarks.md, not a test.
import { readdirSync, readFileSync } from 'node:fs';
import { createMongoDocumentStore } from '../../packages/documents/src';
import { startInfra } from '@underdog/harness';
import {
  FairPlayRepository,
  type FairPlayRow,
} from '../../services/tournament/src/adapters/fair-play-repository';

const [rowsArg, ...batchArgs] = process.argv.slice(2);
const rows = Number(rowsArg ?? 10_000);
const batchSizes = batchArgs.length > 0 ? batchArgs.map(Number) : [1, 20, 100, 500];

/** CPU seconds of a process from /proc (utime + stime, clock ticks of 100 Hz). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The FerretDB process listening on the URL's port (the harness starts it with the port). */
function ferretdbPid(url: string): number | undefined {
  const port = new URL(url).port;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (command.includes('ferretdb') && command.includes(port)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

function votes(run: string, count: number): FairPlayRow[] {
  const t0 = Date.now();
  return Array.from({ length: count }, (_, i) => ({
    id: `vote:${run}-${i}`,
    signal: {
      userId: `user-${i}`,
      tournamentId: `t-${run}`,
      kind: 'voted' as const,
      at: new Date(t0 + i),
      deviceId: `device-${i}`,
      roundNumber: 1,
      imageId: `round-1-image-${i % 4}`,
      username: `player_${i}`,
    },
  }));
}

async function main(): Promise<void> {
  const infra = await startInfra({ redis: false, kafka: false, smtp: false });
  // A database of its own per run: every run writes into an empty collection.
  const open = async (run: string) => {
    const store = await createMongoDocumentStore({
      url: infra.mongoUrl,
      dbName: `fair-play-writes-${Date.now()}-${run}`,
    });
    const repository = new FairPlayRepository(store);
    await store.init();
    return { store, repository };
  };
  const ferretdb = ferretdbPid(infra.mongoUrl);
  console.log(`${rows} vote rows per run; FerretDB pid ${ferretdb ?? 'not found (remote)'}`);
  console.log('| writes | wall s | this process CPU s | FerretDB CPU s | rows stored |');
  console.log('| --- | --- | --- | --- | --- |');
  try {
    for (const size of batchSizes) {
      const run = `b${size}`;
      const { store, repository } = await open(run);
      const all = votes(run, rows);
      const started = performance.now();
      const cpu = process.cpuUsage();
      const dbBefore = ferretdb ? cpuOf(ferretdb) : 0;
      for (let i = 0; i < all.length; i += size) {
        const batch = all.slice(i, i + size);
        if (size === 1) await repository.record(batch[0]!.id, batch[0]!.signal);
        else await repository.recordAll(batch);
      }
      const used = process.cpuUsage(cpu);
      const stored = (await repository.signalsOf(`t-${run}`)).length;
      console.log(
        `| ${size === 1 ? 'insertOne per row (before)' : `insertMany per batch of ${size}`} | ` +
          `${((performance.now() - started) / 1000).toFixed(1)} | ` +
          `${((used.user + used.system) / 1e6).toFixed(1)} | ` +
          `${ferretdb ? (cpuOf(ferretdb) - dbBefore).toFixed(1) : '—'} | ${stored} |`,
      );
      if (size === batchSizes[0]) {
        // The same rows again, as a redelivered batch would bring them: nothing doubles.
        let added = 0;
        const again = Math.max(size, 100);
        for (let i = 0; i < all.length; i += again)
          added += await repository.recordAll(all.slice(i, i + again));
        const total = (await repository.signalsOf(`t-${run}`)).length;
        console.log(
          `| the same rows delivered again (batches of ${again}) | — | — | — | ${total} (${added} added) |`,
        );
      }
      await store.close();
    }
  } finally {
    await infra.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
