// `pnpm bench -- --players 10000 --mode distributed|standalone` (load/README.md): one live round,
// measured, and a table appended to the day's docs/benchmarks/YYYY-MM-DD.md.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runBenchmark, type BenchResult, type StopSignal } from './bench';
import { arrivalProfile } from './arrival';
import { driverProtocol } from './driver-contract';
import {
  appendToBenchmarks,
  benchMode,
  commandArgs,
  loadAverage,
  logFolder,
  machine,
  wholeNumber,
} from './cli';

function options() {
  const args = commandArgs();
  const { values } = parseArgs({
    args,
    options: {
      players: { type: 'string', default: '1000' },
      mode: { type: 'string', default: 'distributed' },
      protocol: { type: 'string', default: 'graphql-ws' },
      tournaments: { type: 'string', default: '1' },
      'round-seconds': { type: 'string', default: '15' },
      spread: { type: 'string', default: '0.8' },
      arrival: { type: 'string', default: 'uniform' },
      drivers: { type: 'string' },
      gateways: { type: 'string' },
      engines: { type: 'string', default: '1' },
      'no-record': { type: 'boolean', default: false },
      'driver-nice': { type: 'string', default: '0' },
      'cpu-prof': { type: 'boolean', default: false },
      'cpu-timeline': { type: 'boolean', default: false },
      'node-flag': { type: 'string', multiple: true, default: [] },
      note: { type: 'string', default: '' },
      'reconnect-storm': { type: 'boolean', default: false },
      'storm-signal': { type: 'string', default: 'SIGTERM' },
      capacity: { type: 'string' },
    },
  });
  const players = wholeNumber(values.players, '--players');
  return {
    players,
    mode: benchMode(values.mode),
    protocol: driverProtocol(values.protocol),
    tournaments: Number(values.tournaments),
    roundSeconds: Number(values['round-seconds']),
    voteSpread: Number(values.spread),
    arrival: arrivalProfile(values.arrival),
    // A driver process holds at most ~12,000 sockets (20,000 open files a process here).
    drivers: values.drivers ? Number(values.drivers) : Math.max(1, Math.ceil(players / 12_000)),
    // One gateway holds at most ~19,000 sockets for the same reason.
    gateways: values.gateways ? Number(values.gateways) : Math.max(1, Math.ceil(players / 18_000)),
    engines: wholeNumber(values.engines, '--engines'),
    record: !values['no-record'],
    cpuProfile: values['cpu-prof'],
    cpuTimeline: values['cpu-timeline'],
    nodeFlags: values['node-flag'],
    driverNice: Number(values['driver-nice']),
    note: values.note,
    ...(values['reconnect-storm']
      ? { reconnectStorm: { signal: stopSignal(values['storm-signal']) } }
      : {}),
    ...(values.capacity === undefined
      ? {}
      : { capacity: wholeNumber(values.capacity, '--capacity') }),
    command: `pnpm bench -- ${args.join(' ')}`,
  };
}

function stopSignal(value: string | undefined): StopSignal {
  if (value !== 'SIGTERM' && value !== 'SIGKILL')
    throw new Error('--storm-signal: SIGTERM or SIGKILL');
  return value;
}

const ms = (value: number) => value.toFixed(0);

/** The storm's and the waiting room's lines, when the run had them. */
function extraTables(result: BenchResult): string[] {
  const lines: string[] = [];
  const { storm, waitingRoom } = result;
  if (storm) {
    lines.push(
      '',
      `Reconnect storm: gateway ${storm.gateway + 1} stopped with ${storm.signal} ${(storm.stoppedAfterMs / 1000).toFixed(1)} s into voting; its players retried after 3 s ± 1 s on the next gateway of their list.`,
      '',
      '| on the stopped gateway | dropped | back | back ≤ 15 s | reconnect after the stop p50 / p95 / p99 / max ms | attempts p50 / max | own vote right in the snapshot | vote at the drop | acked votes lost | drops on the other gateway |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      `| ${storm.onStopped} | ${storm.dropped} | ${storm.back} | ${storm.backWithin} | ${ms(storm.reconnectMs.p50)} / ${ms(storm.reconnectMs.p95)} / ${ms(storm.reconnectMs.p99)} / ${ms(storm.reconnectMs.max)} | ${storm.attempts.p50} / ${storm.attempts.max} | ${storm.rightVote} | ${JSON.stringify(storm.voteAtDrop)} | ${storm.ackedLost} | ${storm.droppedElsewhere} |`,
    );
  }
  if (waitingRoom) {
    lines.push(
      '',
      `Waiting room: capacity ${result.options.capacity} per gateway; a turned-away player retried after the N s of the gateway's 1013 close ± 30 %. The tournament table above is for the players in when voting opened.`,
      '',
      '| offered | in when voting opened | turned away | got in later | never in | 1013 closes |',
      '| --- | --- | --- | --- | --- | --- |',
      `| ${waitingRoom.offered} | ${waitingRoom.inAtVoting} | ${waitingRoom.turnedAway} | ${waitingRoom.gotInLater} | ${waitingRoom.neverIn} | ${waitingRoom.closes} |`,
    );
  }
  return lines;
}

function table(result: BenchResult, meta: { command: string; loadBefore: string; note: string }) {
  const { commit, line } = machine(meta.loadBefore, 'the run');
  const lines = [
    '',
    `## Live round: ${result.options.mode}, ${result.options.protocol ?? 'graphql-ws'}, ${result.options.players} players, ${result.options.tournaments} tournament(s) (${new Date().toISOString().slice(0, 16)}Z, commit ${commit})`,
    '',
    line,
    `Command: \`${meta.command}\` (round ${result.options.roundSeconds} s, votes spread over ${result.options.voteSpread * 100}% of it, ${result.options.arrival === 'front-loaded' ? '80% in its first 5 s' : 'uniformly'}, ${result.options.gateways} gateway(s), ${result.options.engines} engine replica(s)). Seeding ${result.seedSeconds.toFixed(0)} s, connecting ${result.connectSeconds.toFixed(0)} s; ${result.connected} connected, ${result.connectFailures} failed, ${result.dropped} dropped.${meta.note ? ` ${meta.note}` : ''}`,
    '',
    '| tournament (partition) | players | votes sent | acked | counted (player_votes) | engine tally | acked not counted | not acked | ack p50 / p95 / p99 / max ms | results after voting closed p50 / p95 / p99 / max ms | results ≤ 1 s after close | results after deadline p50 / p99 ms |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...result.tournaments.map(
      (t) =>
        `| ${t.tournamentId.slice(0, 8)} (${t.partition}) | ${t.players} | ${t.votesSent} | ${t.acked} | ${t.recorded} | ${t.tally} | ${t.ackedNotCounted.length} | ${JSON.stringify(t.notAcked)} | ${ms(t.ackMs.p50)} / ${ms(t.ackMs.p95)} / ${ms(t.ackMs.p99)} / ${ms(t.ackMs.max)} | ${ms(t.resultsMs.p50)} / ${ms(t.resultsMs.p95)} / ${ms(t.resultsMs.p99)} / ${ms(t.resultsMs.max)} | ${((100 * t.resultsWithin1s) / Math.max(1, t.players)).toFixed(1)}% | ${ms(t.resultsFromDeadlineMs.p50)} / ${ms(t.resultsFromDeadlineMs.p99)} |`,
    ),
    '',
    '| process | CPU s (voting open → last results) | peak RSS MiB |',
    '| --- | --- | --- |',
    ...[...result.processes]
      .sort((a, b) => b.cpuSeconds - a.cpuSeconds)
      .filter((p) => p.cpuSeconds > 0.05 || p.peakRssMiB > 50)
      .map((p) => `| ${p.name} | ${p.cpuSeconds.toFixed(1)} | ${p.peakRssMiB.toFixed(0)} |`),
    '',
    `Driver event-loop delay over the round, p99 / max ms per driver process: ${result.driverLoopDelayMs.map((d) => `${ms(d.p99)} / ${ms(d.max)}`).join(', ')} (a driver late by more than the ack p99 measures itself, not the server).`,
    ...extraTables(result),
    '',
  ];
  return lines.join('\n');
}

async function main() {
  const parsed = options();
  const loadBefore = loadAverage();
  const logDir = logFolder();
  const result = await runBenchmark({
    ...parsed,
    logDir,
    ...(parsed.cpuProfile ? { cpuProfileDir: join(logDir, 'cpu-profiles') } : {}),
    log: (line) => console.log(`bench: ${line}`),
  });
  const text = table(result, { command: parsed.command, loadBefore, note: parsed.note });
  console.log(text);
  for (const tournament of result.tournaments) {
    if (tournament.ackedNotCounted.length > 0) {
      console.log(
        `acked but not counted (${tournament.tournamentId}):`,
        tournament.ackedNotCounted.slice(0, 20),
      );
    }
  }
  if (parsed.record) await appendToBenchmarks(text);
  console.log(`bench: logs in ${logDir}`);
  if (result.storm && result.storm.wrongVote.length > 0) {
    console.log('snapshots with the wrong own vote:', result.storm.wrongVote.slice(0, 20));
  }
  process.exit(result.tournaments.every((t) => t.ackedNotCounted.length === 0) ? 0 : 1);
}

main().catch((error: unknown) => {
  console.error('bench: failed:', error);
  process.exit(1);
});
