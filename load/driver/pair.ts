// `pnpm bench:pair -- --players 2500 --runs 3` (load/README.md): one tournament of N players
// alone against two tournaments of N at once on two `game.votes` partitions, several runs each,
// alternating, each on a fresh stack. The medians are compared figure by figure, and a table
// with every run and the verdict is appended to the day's docs/benchmarks/YYYY-MM-DD.md.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runBenchmark, type TournamentResult } from './bench';
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
import { compareFigures, type Figures } from './stats';

function options() {
  const args = commandArgs();
  const { values } = parseArgs({
    args,
    options: {
      players: { type: 'string', default: '2500' },
      runs: { type: 'string', default: '3' },
      mode: { type: 'string', default: 'distributed' },
      protocol: { type: 'string', default: 'graphql-ws' },
      'round-seconds': { type: 'string', default: '15' },
      spread: { type: 'string', default: '0.8' },
      'no-record': { type: 'boolean', default: false },
      'driver-nice': { type: 'string', default: '0' },
      engines: { type: 'string', default: '1' },
      gateways: { type: 'string', default: '1' },
    },
  });
  return {
    players: wholeNumber(values.players, '--players'),
    runs: wholeNumber(values.runs, '--runs'),
    mode: benchMode(values.mode),
    protocol: driverProtocol(values.protocol),
    roundSeconds: Number(values['round-seconds']),
    voteSpread: Number(values.spread),
    record: !values['no-record'],
    driverNice: Number(values['driver-nice']),
    engines: wholeNumber(values.engines, '--engines'),
    gateways: wholeNumber(values.gateways, '--gateways'),
    command: `pnpm bench:pair -- ${args.join(' ')}`,
  };
}

const figuresOf = (t: TournamentResult): Figures => ({
  counted: t.acked === 0 ? 0 : (100 * (t.acked - t.ackedNotCounted.length)) / t.acked,
  ackP50: t.ackMs.p50,
  ackP95: t.ackMs.p95,
  ackP99: t.ackMs.p99,
  resultsP50: t.resultsMs.p50,
  resultsP95: t.resultsMs.p95,
  resultsP99: t.resultsMs.p99,
  resultsWithin1s: (100 * t.resultsWithin1s) / Math.max(1, t.players),
});

const row = (label: string, f: Figures) =>
  `| ${label} | ${f.counted.toFixed(1)}% | ${f.ackP50.toFixed(0)} / ${f.ackP95.toFixed(0)} / ${f.ackP99.toFixed(0)} | ${f.resultsP50.toFixed(0)} / ${f.resultsP95.toFixed(0)} / ${f.resultsP99.toFixed(0)} | ${f.resultsWithin1s.toFixed(1)}% |`;

async function main() {
  const parsed = options();
  const loadBefore = loadAverage();
  const logRoot = logFolder('pair-');
  const single: Figures[] = [];
  const pair: Figures[] = [];
  const rows: string[] = [];
  for (let run = 1; run <= parsed.runs; run += 1) {
    for (const tournaments of [1, 2]) {
      const label = `${tournaments === 1 ? 'one alone' : 'two at once'}, run ${run}`;
      console.log(`bench:pair: ${label}…`);
      const result = await runBenchmark({
        mode: parsed.mode,
        protocol: parsed.protocol,
        players: parsed.players * tournaments,
        tournaments,
        roundSeconds: parsed.roundSeconds,
        voteSpread: parsed.voteSpread,
        drivers: 1,
        gateways: parsed.gateways,
        engines: parsed.engines,
        driverNice: parsed.driverNice,
        logDir: join(logRoot, `run-${run}-${tournaments}`),
        log: (line) => console.log(`bench: ${line}`),
      });
      for (const [index, tournament] of result.tournaments.entries()) {
        const figures = figuresOf(tournament);
        (tournaments === 1 ? single : pair).push(figures);
        rows.push(row(tournaments === 1 ? label : `${label} (${index + 1})`, figures));
      }
    }
  }
  const verdict = compareFigures(single, pair);
  const { commit, line } = machine(loadBefore, 'the runs');
  const text = [
    '',
    `## Two tournaments at once against one alone: ${parsed.mode}, ${parsed.protocol}, ${parsed.players} players each (${new Date().toISOString().slice(0, 16)}Z, commit ${commit})`,
    '',
    line,
    `Command: \`${parsed.command}\` (${parsed.runs} run(s) of each, alternating, each on a fresh ${parsed.mode} target with ${parsed.engines} engine replica(s) and ${parsed.gateways} gateway(s); round ${parsed.roundSeconds} s, votes spread over ${parsed.voteSpread * 100}% of it). Logs: \`${logRoot}\`.`,
    '',
    '| run | acked votes counted | ack p50 / p95 / p99 ms | results after close p50 / p95 / p99 ms | results ≤ 1 s |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    row('**median, one alone**', verdict.single),
    row('**median, two at once**', verdict.pair),
    '',
    '| figure | one alone | two at once | two against one | within 20% |',
    '| --- | --- | --- | --- | --- |',
    ...verdict.rows.map(
      (r) =>
        `| ${r.figure} | ${r.single.toFixed(1)} | ${r.pair.toFixed(1)} | ${r.change >= 0 ? '+' : ''}${(100 * r.change).toFixed(0)}% | ${r.within ? 'yes' : '**no**'} |`,
    ),
    '',
    `Verdict: ${verdict.within ? 'every figure of two at once is within 20% of one alone (or better)' : 'not every figure is within 20% of one alone'}.`,
    '',
  ].join('\n');
  console.log(text);
  if (parsed.record) await appendToBenchmarks(text);
  process.exit(single.concat(pair).every((f) => f.counted === 100) ? 0 : 1);
}

main().catch((error: unknown) => {
  console.error('bench:pair: failed:', error);
  process.exit(1);
});
